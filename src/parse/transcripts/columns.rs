//! The aligned tables util-linux prints through libsmartcols (`lsblk`, `findmnt`): columns by
//! their header's offsets, and the tree drawn before a name.

/// Column start offsets from a left-aligned header (libsmartcols pads every header cell to its
/// column's width, so a cell's text lies between its header's start and the next one's).
pub(super) fn header_columns(header: &str) -> Vec<(usize, String)> {
    let mut cols = Vec::new();
    let mut prev_space = true;
    for (i, c) in header.char_indices() {
        if !c.is_whitespace() && prev_space {
            cols.push((i, String::new()));
        }
        if let (false, Some(last)) = (c.is_whitespace(), cols.last_mut()) {
            last.1.push(c);
        }
        prev_space = c.is_whitespace();
    }
    cols
}

/// The cells of a row under `cols` (by byte offset; a row shorter than a column leaves it
/// empty).
pub(super) fn cells(row: &str, cols: &[(usize, String)]) -> Vec<String> {
    let chars: Vec<char> = row.chars().collect();
    // Offsets in the header are bytes of ASCII text; a row may hold tree characters (`├─`), which
    // lsblk/findmnt print one column wide each: index by chars.
    (0..cols.len())
        .map(|i| {
            let start = cols[i].0;
            let end = cols.get(i + 1).map_or(chars.len(), |c| c.0);
            if start >= chars.len() {
                return String::new();
            }
            chars[start..end.min(chars.len())]
                .iter()
                .collect::<String>()
                .trim()
                .to_string()
        })
        .collect()
}

/// Tree and list decorations lsblk and findmnt draw before a name (`├─`, `└─`, `│ `, and their
/// ASCII forms `|-`, `` `- ``).
pub(super) fn strip_tree(s: &str) -> &str {
    s.trim_start_matches(['├', '└', '│', '─', '|', '`', '-', ' '])
}
