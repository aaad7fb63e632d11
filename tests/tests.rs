//! All integration tests, compiled into one binary.

mod corpus;
