//! The HTTP stack under kube's client. kube-rs builds an HTTP/1.1-only client (its rustls
//! connector enables only http1, and its TLS config offers no ALPN), so concurrent requests
//! each open their own TCP+TLS connection (kube-rs/kube#1823, #1923). Here the same layers
//! are assembled over a connector that offers `h2` and `http/1.1` by ALPN, as kubectl does:
//! against an API server (which speaks h2) every request of a run shares one connection and one
//! TLS session; a server without h2 gets HTTP/1.1 with keep-alive.
//!
//! WebSocket upgrades (exec) do not work over h2 (kube-rs/kube#1923): `exec_client` keeps
//! kube's own HTTP/1.1 stack for them.

use std::sync::Arc;

use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use kube::client::ConfigExt;
use kube::{Client, Config};
use tower::ServiceBuilder;

/// Counts requests as they leave (the `-v` line, the benches).
pub type RequestHook = Arc<dyn Fn(&http::Request<kube::client::Body>) + Send + Sync>;

/// Told the path of each watch request the server accepted (a 2xx answer). A watch that resumes
/// and has nothing to report yields no item, so this is the only sign that it is healthy again
/// (`volmnt watch`'s readiness after an API server outage).
pub type WatchHook = Arc<dyn Fn(&str) + Send + Sync>;

/// The tower layer that calls a [`WatchHook`] when a watch request is answered with success.
#[derive(Clone)]
struct ObserveWatches<S> {
    inner: S,
    hook: WatchHook,
}

fn is_watch(uri: &http::Uri) -> bool {
    uri.query()
        .is_some_and(|q| q.split('&').any(|kv| kv == "watch=true" || kv == "watch=1"))
}

impl<S, B, R> tower::Service<http::Request<B>> for ObserveWatches<S>
where
    S: tower::Service<http::Request<B>, Response = http::Response<R>>,
    S::Future: Send + 'static,
    S::Error: 'static,
    R: 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = futures::future::BoxFuture<'static, Result<S::Response, S::Error>>;

    fn poll_ready(
        &mut self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: http::Request<B>) -> Self::Future {
        let watch = is_watch(req.uri()).then(|| req.uri().path().to_string());
        let fut = self.inner.call(req);
        let hook = self.hook.clone();
        Box::pin(async move {
            let r = fut.await;
            if let (Some(path), Ok(resp)) = (&watch, &r) {
                if resp.status().is_success() {
                    hook(path);
                }
            }
            r
        })
    }
}

/// A client for API reads and writes: one connection, HTTP/2 when the server offers it.
pub fn api_client(config: &Config, hook: RequestHook, watched: WatchHook) -> kube::Result<Client> {
    // hyper-rustls offers `h2` and `http/1.1` by ALPN from enable_http2/enable_http1.
    let tls = config.rustls_client_config()?;
    let mut http = HttpConnector::new();
    http.enforce_http(false);
    http.set_nodelay(true);
    let https = hyper_rustls::HttpsConnectorBuilder::new()
        .with_tls_config(tls)
        .https_or_http()
        .enable_http1()
        .enable_http2()
        .wrap_connector(http);
    let mut connector = hyper_timeout::TimeoutConnector::new(https);
    connector.set_connect_timeout(config.connect_timeout);
    connector.set_read_timeout(config.read_timeout);
    connector.set_write_timeout(config.write_timeout);
    let client: hyper_util::client::legacy::Client<_, kube::client::Body> =
        hyper_util::client::legacy::Client::builder(TokioExecutor::new())
            // One connection per host is all an h2 server needs; idle ones close quickly.
            .pool_idle_timeout(std::time::Duration::from_secs(30))
            .build(connector);
    let service = ServiceBuilder::new()
        .layer(config.base_uri_layer())
        .option_layer(config.auth_layer()?)
        .layer(config.extra_headers_layer()?)
        .map_request(move |r: http::Request<kube::client::Body>| {
            hook(&r);
            r
        })
        .map_err(tower::BoxError::from)
        .layer(tower::layer::layer_fn(move |inner| ObserveWatches {
            inner,
            hook: watched.clone(),
        }))
        .service(client);
    Ok(Client::new(service, config.default_namespace.clone()))
}

/// kube's own HTTP/1.1 client, for what needs a connection upgrade (exec's WebSocket).
pub fn exec_client(config: Config, hook: RequestHook) -> kube::Result<Client> {
    let layer = tower::util::MapRequestLayer::new(move |r: http::Request<kube::client::Body>| {
        hook(&r);
        r
    });
    Ok(kube::client::ClientBuilder::try_from(config)?
        .with_layer(&layer)
        .build())
}
