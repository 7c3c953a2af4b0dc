//! The house's two scans over `src/` (issue 42's acceptance), shared by `scripts/house` (through
//! `examples/house.rs`, which prints them) and the fast tier's `tests/cli/house.rs` (which fails
//! on a circle or on too many long functions):
//! - the graph of top-level modules: an arrow A → B when a file of module A names `crate::B`
//!   in code (`use crate::B…`, `use crate::{B, …}` or a path `crate::B::…`), comments and
//!   string literals left out; and the circles in it (strongly connected sets of two or more);
//! - a brace scan of functions: every `fn` with a body, its length counted from the line of
//!   `fn` to the line of the body's closing brace, inclusive; those over 70 lines listed.
//!
//! Both scans read the text only: a small lexer blanks comments, string and char literals
//! (raw strings included) so that a brace or `crate::` inside them counts for nothing.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// TigerBeetle's limit: a function a reader can hold.
pub const LINES_MAX: usize = 70;

/// One function longer than [`LINES_MAX`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LongFn {
    /// The file, relative to the crate root (`src/log/mod.rs`).
    pub path: String,
    /// The function's name.
    pub name: String,
    /// The line of its `fn` keyword (1-based).
    pub line: usize,
    /// From the `fn` line to the closing brace's line, inclusive.
    pub line_count: usize,
}

/// The two scans of one `src/` tree.
#[derive(Debug, Clone)]
pub struct House {
    /// Arrows between top-level modules: from → {to → the first `path:line` that names it}.
    pub arrows: BTreeMap<String, BTreeMap<String, String>>,
    /// Circles: each a sorted set of two or more modules that reach each other.
    pub circles: Vec<Vec<String>>,
    /// Functions over [`LINES_MAX`] lines, longest first.
    pub long_fns: Vec<LongFn>,
}

impl House {
    pub fn arrow_count(&self) -> usize {
        self.arrows.values().map(BTreeMap::len).sum()
    }

    /// The report `scripts/house` prints; `why` adds, under each arrow, the line that makes it.
    pub fn render(&self, why: bool) -> String {
        let mut out = String::new();
        out.push_str(&format!("graph of top-level modules of src/: {} arrows\n", self.arrow_count()));
        for (from, to) in &self.arrows {
            if why {
                for (to, at) in to {
                    out.push_str(&format!("  {from} -> {to}  ({at})\n"));
                }
            } else {
                let to: Vec<&str> = to.keys().map(String::as_str).collect();
                out.push_str(&format!("  {from} -> {}\n", to.join(" ")));
            }
        }
        if self.circles.is_empty() {
            out.push_str("circles: none\n");
        } else {
            for circle in &self.circles {
                out.push_str(&format!("circle: {}\n", circle.join(" <-> ")));
            }
        }
        out.push_str(&format!("functions over {LINES_MAX} lines: {}\n", self.long_fns.len()));
        for f in &self.long_fns {
            out.push_str(&format!("  {:>4}  {}:{}  {}\n", f.line_count, f.path, f.line, f.name));
        }
        out
    }
}

/// Scans the crate at `root` (the dir holding `src/`).
pub fn scan(root: &Path) -> House {
    let src = root.join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let modules: BTreeSet<String> = top_level_modules(&src);
    let mut arrows: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    let mut long_fns = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let code = blank_comments_and_literals(&text);
        let relative = file.strip_prefix(root).unwrap_or(file).to_string_lossy().replace('\\', "/");
        if let Some(from) = module_of(&src, file) {
            for (to, line) in crate_paths(&code) {
                if to != from && modules.contains(&to) {
                    arrows.entry(from.clone()).or_default().entry(to).or_insert_with(|| format!("{relative}:{line}"));
                }
            }
        }
        long_fns.extend(long_functions(&code, &relative));
    }
    long_fns.sort_by(|a, b| b.line_count.cmp(&a.line_count).then(a.path.cmp(&b.path)).then(a.line.cmp(&b.line)));
    let circles = circles(&arrows);
    House { arrows, circles, long_fns }
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The modules `src/lib.rs` and `src/main.rs` can name: `src/x.rs` and `src/x/`.
fn top_level_modules(src: &Path) -> BTreeSet<String> {
    let mut modules = BTreeSet::new();
    for entry in std::fs::read_dir(src).into_iter().flatten().flatten() {
        let path = entry.path();
        let name = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        if path.is_dir() || (path.extension().is_some_and(|e| e == "rs") && name != "lib" && name != "main") {
            modules.insert(name);
        }
    }
    modules
}

/// The top-level module a file belongs to (`src/log/index.rs` → `log`); none for the roots.
fn module_of(src: &Path, file: &Path) -> Option<String> {
    let relative = file.strip_prefix(src).ok()?;
    let first = relative.components().next()?.as_os_str().to_string_lossy().into_owned();
    let name = first.strip_suffix(".rs").unwrap_or(&first).to_string();
    (name != "lib" && name != "main").then_some(name)
}

/// The first segment after each `crate::` in code: `crate::log::x` → `log`, and every name of
/// a group `crate::{log, format::batch}` → `log`, `format`; each with the first line naming it.
fn crate_paths(code: &str) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    let bytes = code.as_bytes();
    let mut at = 0;
    while let Some(found) = code[at..].find("crate::") {
        let start = at + found;
        at = start + "crate::".len();
        if start > 0 && is_ident(bytes[start - 1]) {
            continue; // `$crate::` or `my_crate::`
        }
        let line = 1 + bytes[..start].iter().filter(|&&b| b == b'\n').count();
        let mut insert = |name: String| {
            out.entry(name).or_insert(line);
        };
        let rest = code[at..].trim_start();
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 0usize;
            let mut item = String::new();
            let mut first_of_item = true;
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        first_of_item = true;
                        item.clear();
                        continue;
                    }
                    _ => {}
                }
                if depth == 0 && first_of_item {
                    if c.is_alphanumeric() || c == '_' {
                        item.push(c);
                    } else if !item.is_empty() {
                        insert(std::mem::take(&mut item));
                        first_of_item = false;
                    }
                }
            }
            if first_of_item && !item.is_empty() {
                insert(item);
            }
        } else {
            let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            if !name.is_empty() {
                insert(name);
            }
        }
    }
    out
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$'
}

/// Strongly connected sets of two or more modules (Tarjan), each sorted, the list sorted.
fn circles(arrows: &BTreeMap<String, BTreeMap<String, String>>) -> Vec<Vec<String>> {
    struct Walk<'a> {
        arrows: &'a BTreeMap<String, BTreeMap<String, String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        found: Vec<Vec<String>>,
    }
    fn visit<'a>(w: &mut Walk<'a>, node: &'a str) {
        let n = w.index.len();
        w.index.insert(node, n);
        w.low.insert(node, n);
        w.stack.push(node);
        w.on_stack.insert(node);
        if let Some(next) = w.arrows.get(node) {
            for to in next.keys() {
                let to = to.as_str();
                if !w.index.contains_key(to) {
                    visit(w, to);
                    let low = w.low[node].min(w.low[to]);
                    w.low.insert(node, low);
                } else if w.on_stack.contains(to) {
                    let low = w.low[node].min(w.index[to]);
                    w.low.insert(node, low);
                }
            }
        }
        if w.low[node] == w.index[node] {
            let mut set = Vec::new();
            while let Some(top) = w.stack.pop() {
                w.on_stack.remove(top);
                set.push(top.to_string());
                if top == node {
                    break;
                }
            }
            if set.len() > 1 {
                set.sort();
                w.found.push(set);
            }
        }
    }
    let mut w = Walk {
        arrows,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    let mut nodes: BTreeSet<&str> = arrows.keys().map(String::as_str).collect();
    nodes.extend(arrows.values().flat_map(BTreeMap::keys).map(String::as_str));
    for node in nodes {
        if !w.index.contains_key(node) {
            visit(&mut w, node);
        }
    }
    w.found.sort();
    w.found
}

/// The text with every comment and the inside of every string and char literal replaced by
/// spaces (line breaks kept, so line numbers stay right). Lifetimes and labels are kept.
pub fn blank_comments_and_literals(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    let mut i = 0;
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0usize;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
        } else if let Some(hashes) = raw_string_start(&chars, i, ident) {
            // r"…", r#"…"#, br"…", cr#"…"#: up to the quote followed by as many hashes.
            let prefix_len = chars[i..].iter().position(|&c| c == '"').unwrap_or(0) + 1;
            out.extend(std::iter::repeat_n(' ', prefix_len));
            i += prefix_len;
            while i < chars.len() {
                if chars[i] == '"' && chars[i + 1..].iter().take(hashes).filter(|&&h| h == '#').count() == hashes {
                    out.extend(std::iter::repeat_n(' ', 1 + hashes));
                    i += 1 + hashes;
                    break;
                }
                out.push(blank(chars[i]));
                i += 1;
            }
        } else if c == '"' {
            out.push(' ');
            i += 1;
            while i < chars.len() {
                if chars[i] == '\\' {
                    out.push(' ');
                    if let Some(&escaped) = chars.get(i + 1) {
                        out.push(blank(escaped));
                    }
                    i += 2;
                } else if chars[i] == '"' {
                    out.push(' ');
                    i += 1;
                    break;
                } else {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
        } else if c == '\'' && (i == 0 || !ident(chars[i - 1])) {
            // A char literal ('x', '\n', '\u{7f}', '{') or a lifetime / label ('a, 'outer).
            if next == Some('\\') {
                let end = chars[i + 2..].iter().position(|&c| c == '\'').map_or(chars.len(), |p| i + 2 + p + 1);
                out.extend(std::iter::repeat_n(' ', end - i));
                i = end;
            } else if chars.get(i + 2) == Some(&'\'') {
                out.push_str("   ");
                i += 3;
            } else {
                out.push(c);
                i += 1;
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// At a raw string's start (`r"`, `r#…#"`, `br"`, `cr"`), its number of hashes.
fn raw_string_start(chars: &[char], i: usize, ident: impl Fn(char) -> bool) -> Option<usize> {
    if i > 0 && ident(chars[i - 1]) {
        return None;
    }
    let mut j = i;
    if matches!(chars.get(j), Some('b') | Some('c')) && chars.get(j + 1) == Some(&'r') {
        j += 1;
    }
    if chars.get(j) != Some(&'r') {
        return None;
    }
    j += 1;
    let hashes = chars[j..].iter().take_while(|&&c| c == '#').count();
    (chars.get(j + hashes) == Some(&'"')).then_some(hashes)
}

/// Every function with a body in `code` (already blanked) longer than [`LINES_MAX`] lines.
fn long_functions(code: &str, path: &str) -> Vec<LongFn> {
    let bytes = code.as_bytes();
    let line_starts: Vec<usize> = bytes.iter().enumerate().filter(|(_, &b)| b == b'\n').map(|(k, _)| k).collect();
    let line_at = |pos: usize| 1 + line_starts.partition_point(|&k| k < pos);
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(found) = code[at..].find("fn") {
        let start = at + found;
        at = start + 2;
        let before_ok = start == 0 || !is_ident(bytes[start - 1]);
        let after = &code[at..];
        if !before_ok || !after.starts_with(|c: char| c.is_whitespace()) {
            continue; // part of a word, or `fn(` (a pointer type)
        }
        let name: String = after.trim_start().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        if name.is_empty() {
            continue;
        }
        // The body: the first `{` outside parentheses and brackets, unless a `;` comes first.
        let mut depth = 0i32;
        let mut open = None;
        for (k, &b) in bytes.iter().enumerate().skip(at) {
            match b {
                b'(' | b'[' => depth += 1,
                b')' | b']' => depth -= 1,
                b';' if depth == 0 => break,
                b'{' if depth == 0 => {
                    open = Some(k);
                    break;
                }
                _ => {}
            }
        }
        let Some(open) = open else { continue };
        let mut braces = 0usize;
        let mut close = None;
        for (k, &b) in bytes.iter().enumerate().skip(open) {
            if b == b'{' {
                braces += 1;
            } else if b == b'}' {
                braces -= 1;
                if braces == 0 {
                    close = Some(k);
                    break;
                }
            }
        }
        let Some(close) = close else { continue };
        let (first, last) = (line_at(start), line_at(close));
        let line_count = last - first + 1;
        if line_count > LINES_MAX {
            out.push(LongFn { path: path.to_string(), name, line: first, line_count });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn braces_in_strings_chars_and_comments_count_for_nothing() {
        let code =
            blank_comments_and_literals("fn a() { let s = \"{\"; let c = '{'; // {\n /* { */ let r = r#\"}\"#; }");
        assert_eq!(code.matches('{').count(), 1);
        assert_eq!(code.matches('}').count(), 1);
    }

    #[test]
    fn lifetimes_stay_code() {
        let code = blank_comments_and_literals("fn a<'x>(s: &'x str) -> &'x str { s }");
        assert!(code.contains("<'x>"));
        assert!(code.contains("{ s }"));
    }

    #[test]
    fn group_imports_name_each_module() {
        let paths =
            crate_paths("use crate::{log::index, format::{batch, record}, util};\nlet x = crate::durable::write();");
        let names: Vec<(&str, usize)> = paths.iter().map(|(name, line)| (name.as_str(), *line)).collect();
        assert_eq!(names, [("durable", 2), ("format", 1), ("log", 1), ("util", 1)]);
    }

    #[test]
    fn a_function_is_counted_from_its_fn_line_to_its_closing_brace() {
        let body = "    x();\n".repeat(LINES_MAX - 1);
        let code = format!(
            "fn short() {{\n}}\nfn long(a: [u8; 2]) -> u8\nwhere u8: Copy,\n{{\n{body}}}\ntrait T {{ fn none(); }}\n"
        );
        let found = long_functions(&code, "x.rs");
        assert_eq!(
            found,
            vec![LongFn { path: "x.rs".into(), name: "long".into(), line: 3, line_count: LINES_MAX + 3 }]
        );
    }

    #[test]
    fn a_circle_is_found_and_a_chain_is_not() {
        let mut arrows: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
        for (from, to) in [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")] {
            arrows.entry(from.into()).or_default().insert(to.into(), String::new());
        }
        assert_eq!(circles(&arrows), vec![vec!["a".to_string(), "b".into(), "c".into()]]);
        arrows.get_mut("c").unwrap().remove("a");
        assert!(circles(&arrows).is_empty());
    }
}
