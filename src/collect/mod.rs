//! The only layer that does I/O: it fills a `Case`. Offline inputs today; the live API, node
//! probes and the rbd CLI produce the same types.

pub mod cluster;
pub mod node;
pub mod offline;
pub mod rbd;
pub mod save;
pub mod transport;
pub mod watch;
