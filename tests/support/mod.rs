//! Shared test support. `fake_api` is one self-contained file so that `benches/` can include it
//! with `#[path = "../tests/support/fake_api.rs"] mod fake_api;`.

pub mod ceph;
pub mod fake_api;
pub mod sshd;
