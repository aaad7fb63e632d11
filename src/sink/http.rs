//! `/metrics`, `/healthz` and `/readyz` for `volmnt watch` (HTTP/1.1, GET and HEAD only).
//!
//! `/healthz` answers 200 while the process serves at all (a liveness probe restarts a process
//! that stopped answering). `/readyz` answers 200 once every watched resource has been listed
//! and 503 before, so a rollout waits for the cache, and 503 again while a watch fails (the API
//! server is unreachable or answers with errors: the cache may be stale) until it is
//! re-established; a replica that is not the leader is still ready (it holds a warm cache and
//! takes over when the leader goes).

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;

use http_body_util::Full;
use hyper::body::Bytes;
use hyper::{Method, Request, Response, StatusCode};

use super::metrics::Metrics;

fn reply(code: StatusCode, content_type: &'static str, body: String) -> Response<Full<Bytes>> {
    let mut r = Response::new(Full::new(Bytes::from(body)));
    *r.status_mut() = code;
    r.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static(content_type),
    );
    r
}

/// The answer to one request (pure apart from reading the metrics).
pub fn answer(method: &Method, path: &str, metrics: &Metrics) -> Response<Full<Bytes>> {
    if method != Method::GET && method != Method::HEAD {
        return reply(
            StatusCode::METHOD_NOT_ALLOWED,
            "text/plain; charset=utf-8",
            "only GET\n".into(),
        );
    }
    match path {
        "/metrics" => reply(
            StatusCode::OK,
            "text/plain; version=0.0.4; charset=utf-8",
            metrics.render(),
        ),
        "/healthz" | "/livez" => reply(StatusCode::OK, "text/plain; charset=utf-8", "ok\n".into()),
        "/readyz" => {
            if metrics.synced() {
                reply(StatusCode::OK, "text/plain; charset=utf-8", "ok\n".into())
            } else {
                reply(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "text/plain; charset=utf-8",
                    "the watch cache is not in sync (not listed yet, or a watch is failing)\n"
                        .into(),
                )
            }
        }
        _ => reply(
            StatusCode::NOT_FOUND,
            "text/plain; charset=utf-8",
            "not found: /metrics, /healthz and /readyz are served\n".into(),
        ),
    }
}

/// Bind `addr` (an error here is the caller's to report: the port may be taken) and serve in
/// the background. Returns the bound address (port 0 picks a free one).
pub async fn serve(addr: SocketAddr, metrics: Arc<Metrics>) -> std::io::Result<SocketAddr> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let bound = listener.local_addr()?;
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                continue;
            };
            let metrics = metrics.clone();
            tokio::spawn(async move {
                let svc = hyper::service::service_fn(move |req: Request<hyper::body::Incoming>| {
                    let r = answer(req.method(), req.uri().path(), &metrics);
                    async move { Ok::<_, Infallible>(r) }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), svc)
                    .await;
            });
        }
    });
    Ok(bound)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readiness_follows_the_cache() {
        let m = Metrics::new();
        assert_eq!(answer(&Method::GET, "/readyz", &m).status(), 503);
        assert_eq!(answer(&Method::GET, "/healthz", &m).status(), 200);
        m.set_synced(true);
        assert_eq!(answer(&Method::GET, "/readyz", &m).status(), 200);
        assert_eq!(answer(&Method::GET, "/nope", &m).status(), 404);
        assert_eq!(answer(&Method::POST, "/metrics", &m).status(), 405);
        let r = answer(&Method::GET, "/metrics", &m);
        assert_eq!(
            r.headers()[hyper::header::CONTENT_TYPE],
            "text/plain; version=0.0.4; charset=utf-8"
        );
    }
}
