//! The image: `pool/image` or `pool/namespace/image`, and the image a PV stands for.

use k8s_openapi::api::core::v1::PersistentVolume;
use serde::Serialize;

use crate::parse::rbd::parse_image_spec;

/// `pool/image` or `pool/namespace/image`, limited to characters safe to print in a command.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct ImageSpec {
    pub pool: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    pub image: String,
}

impl ImageSpec {
    pub fn parse(spec: &str) -> Option<ImageSpec> {
        parse_image_spec(spec).map(|(pool, namespace, image)| ImageSpec {
            pool,
            namespace,
            image,
        })
    }

    pub(super) fn of_parts(pool: &str, namespace: Option<&str>, image: &str) -> Option<ImageSpec> {
        let spec = match namespace.filter(|n| !n.is_empty()) {
            Some(ns) => format!("{pool}/{ns}/{image}"),
            None => format!("{pool}/{image}"),
        };
        ImageSpec::parse(&spec)
    }
}

impl std::fmt::Display for ImageSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.namespace {
            Some(ns) => write!(f, "{}/{}/{}", self.pool, ns, self.image),
            None => write!(f, "{}/{}", self.pool, self.image),
        }
    }
}

/// The RBD image a PV stands for: in-tree `spec.rbd` (pool defaults to `rbd`, as kubelet's),
/// or ceph-csi's `spec.csi.volumeAttributes` (`pool`, `imageName`, `radosNamespace`), with
/// ceph-csi's `clusterID` when present.
pub fn image_of_pv(pv: &PersistentVolume) -> Option<(ImageSpec, Option<String>)> {
    let spec = pv.spec.as_ref()?;
    if let Some(r) = &spec.rbd {
        let pool = r.pool.as_deref().unwrap_or("rbd");
        return ImageSpec::of_parts(pool, None, &r.image).map(|i| (i, None));
    }
    let attrs = spec.csi.as_ref()?.volume_attributes.as_ref()?;
    let (pool, image) = (attrs.get("pool")?, attrs.get("imageName")?);
    let ns = attrs.get("radosNamespace").map(String::as_str);
    ImageSpec::of_parts(pool, ns, image).map(|i| (i, attrs.get("clusterID").cloned()))
}
