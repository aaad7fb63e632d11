//! A Kubernetes list's items split as its bytes arrive (parse/list_items.rs, read from the API
//! server's streamed answers): any bytes, cut anywhere, never panic, and the items found do not
//! depend on where the chunks were cut.
#![no_main]
use volmnt::parse::list_items::ItemSplitter;

fn split(chunks: &[&[u8]]) -> (Vec<Vec<u8>>, bool, bool) {
    let mut s = ItemSplitter::new();
    let mut items = Vec::new();
    let mut failed = false;
    for c in chunks {
        if s
            .feed(c, |b| {
                items.push(b.to_vec());
                Ok(())
            })
            .is_err()
        {
            failed = true;
            break;
        }
    }
    (items, s.complete(), failed)
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if data.is_empty() {
        return;
    }
    // The first byte picks where the rest is cut in two.
    let rest = &data[1..];
    let cut = (data[0] as usize * rest.len()) / 255;
    let whole = split(&[rest]);
    let parts = split(&[&rest[..cut], &rest[cut..]]);
    if !whole.2 && !parts.2 {
        assert_eq!(whole, parts, "cut at {cut}");
    }
});
