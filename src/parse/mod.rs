//! Pure parsers for everything an operator can paste or save. No I/O here.

pub mod describe;
pub mod events;
pub mod klog;
pub mod mount_error;
pub mod mountinfo;
pub mod objects;
pub mod probe;
pub mod rbd;
