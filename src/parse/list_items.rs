//! A Kubernetes list's `items`, one object at a time, as the answer's bytes arrive: a list the
//! API server answers whole from its watch cache (`resourceVersion=0`: every pod of a cluster
//! that is not Pending, 128 MB of JSON at 50,000 pods) is decoded item by item and never held
//! whole (issue 30). Only the split is done here; the collector decodes each item's bytes with
//! serde (collect/cluster/reads.rs, `list_streamed`).
//!
//! The answer is a JSON object (`{"kind":"PodList","apiVersion":"v1","metadata":{..},
//! "items":[{..},{..}]}`, apimachinery's List encoding); the splitter follows strings (and
//! their escapes) and nesting, and hands out each element of the top-level `items` array.

/// Bytes in, items out. Feed the answer's chunks in order; each complete item is returned.
#[derive(Debug, Default)]
pub struct ItemSplitter {
    depth: u32,
    in_string: bool,
    escaped: bool,
    /// The last string read at depth 1 (a key of the list object), up to 16 bytes.
    key: Vec<u8>,
    key_too_long: bool,
    /// Inside the top-level `items` array.
    in_items: bool,
    /// The item being read (its bytes so far), when inside one.
    item: Option<Vec<u8>>,
    /// Nesting deeper than any object the API serves: refused rather than followed.
    too_deep: bool,
}

/// Deeper than this, a list answer is not what the API server sends.
const MAX_DEPTH: u32 = 512;

impl ItemSplitter {
    pub fn new() -> Self {
        Self::default()
    }

    /// Read one chunk; `on_item` gets the bytes of each item completed in it.
    pub fn feed(
        &mut self,
        chunk: &[u8],
        mut on_item: impl FnMut(&[u8]) -> Result<(), String>,
    ) -> Result<(), String> {
        if self.too_deep {
            return Err("the list nests deeper than any Kubernetes object".into());
        }
        let mut start = if self.item.is_some() { Some(0) } else { None };
        for (i, &b) in chunk.iter().enumerate() {
            if self.in_string {
                if self.escaped {
                    self.escaped = false;
                } else if b == b'\\' {
                    self.escaped = true;
                } else if b == b'"' {
                    self.in_string = false;
                } else if self.depth == 1 && !self.key_too_long {
                    if self.key.len() < 16 {
                        self.key.push(b);
                    } else {
                        self.key_too_long = true;
                    }
                }
                continue;
            }
            match b {
                b'"' => {
                    self.in_string = true;
                    if self.depth == 1 {
                        self.key.clear();
                        self.key_too_long = false;
                    }
                }
                b'{' | b'[' => {
                    if self.in_items && self.depth == 2 && b == b'{' {
                        self.item = Some(Vec::new());
                        start = Some(i);
                    }
                    if self.depth == 1 && b == b'[' && !self.key_too_long && self.key == b"items" {
                        self.in_items = true;
                    }
                    self.depth += 1;
                    if self.depth > MAX_DEPTH {
                        self.too_deep = true;
                        return Err("the list nests deeper than any Kubernetes object".into());
                    }
                }
                b'}' | b']' => {
                    self.depth = self.depth.saturating_sub(1);
                    if self.in_items && self.depth == 2 && b == b'}' {
                        if let (Some(mut item), Some(s)) = (self.item.take(), start.take()) {
                            item.extend_from_slice(&chunk[s..=i]);
                            on_item(&item)?;
                        }
                    } else if self.in_items && self.depth == 1 {
                        self.in_items = false;
                    }
                }
                _ => {}
            }
        }
        // An item cut by the chunk's end: keep its bytes so far.
        if let (Some(item), Some(s)) = (self.item.as_mut(), start) {
            item.extend_from_slice(&chunk[s..]);
        }
        Ok(())
    }

    /// Whether the answer ended where a whole list ends (not inside an object or a string).
    pub fn complete(&self) -> bool {
        self.depth == 0 && !self.in_string && self.item.is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(chunks: &[&[u8]]) -> (Vec<String>, bool) {
        let mut s = ItemSplitter::new();
        let mut out = Vec::new();
        for c in chunks {
            s.feed(c, |b| {
                out.push(String::from_utf8(b.to_vec()).unwrap());
                Ok(())
            })
            .unwrap();
        }
        (out, s.complete())
    }

    const LIST: &str = r#"{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"652257","items":"not these"},"items":[{"metadata":{"name":"a","annotations":{"x":"}{][\"items\":["}},"spec":{"volumes":[{"name":"v"}]}},{"metadata":{"name":"b"}}]}"#;

    #[test]
    fn each_item_of_the_top_level_array_whole() {
        let (items, done) = split(&[LIST.as_bytes()]);
        assert_eq!(items.len(), 2);
        let a: serde_json::Value = serde_json::from_str(&items[0]).unwrap();
        assert_eq!(a["metadata"]["name"], "a");
        assert_eq!(a["metadata"]["annotations"]["x"], "}{][\"items\":[");
        assert_eq!(items[1], r#"{"metadata":{"name":"b"}}"#);
        assert!(done);
    }

    #[test]
    fn chunks_cut_anywhere_give_the_same_items() {
        let whole = split(&[LIST.as_bytes()]).0;
        let b = LIST.as_bytes();
        for cut in 1..b.len() {
            let (items, done) = split(&[&b[..cut], &b[cut..]]);
            assert_eq!(items, whole, "cut at {cut}");
            assert!(done);
        }
        // One byte at a time.
        let bytes: Vec<&[u8]> = b.chunks(1).collect();
        assert_eq!(split(&bytes).0, whole);
    }

    #[test]
    fn an_empty_list_and_a_cut_answer() {
        let (items, done) = split(&[br#"{"kind":"PodList","metadata":{},"items":[]}"#]);
        assert!(items.is_empty() && done);
        let (items, done) = split(&[br#"{"kind":"PodList","items":[{"a":1},{"b":"#]);
        assert_eq!(items, vec![r#"{"a":1}"#.to_string()]);
        assert!(!done, "an answer cut inside an item is not a whole list");
    }

    #[test]
    fn nesting_deeper_than_any_object_is_refused() {
        let mut s = ItemSplitter::new();
        let deep = "[".repeat(600);
        assert!(s.feed(deep.as_bytes(), |_| Ok(())).is_err());
        assert!(s.feed(b"]", |_| Ok(())).is_err());
    }
}
