//! The tag set's naive reference and random cases: the semantics read off the issue, a
//! character at a time, with no searcher and no carry.

use super::cases::ALPHABET;
use crate::tags::{TagEvent, TagScanner, TagSet};
use quickcheck::{Arbitrary, Gen};

/// One step of a tagged text, with adjacent pieces of one kind joined (chunking moves piece
/// boundaries, never what the pieces say).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Outside text.
    Outside(String),
    /// A pair's start marker.
    Open(usize),
    /// A pair's match text.
    Text(usize, String),
    /// A pair's end marker.
    Close(usize),
}

/// Appends `step`, joining it to the last one when both are pieces of the same kind.
pub fn push(steps: &mut Vec<Step>, step: Step) {
    match (steps.last_mut(), step) {
        (Some(Step::Outside(a)), Step::Outside(b)) => a.push_str(&b),
        (Some(Step::Text(t, a)), Step::Text(u, b)) if *t == u => a.push_str(&b),
        (_, step) => steps.push(step),
    }
}

/// The steps of `events`, pieces joined.
///
/// ```
/// use extract_between::Pos;
/// use extract_between::tags::TagEvent;
/// use extract_between::testing::tags::{Step, steps};
/// let span = [Pos::default(); 2];
/// let events = [
///     TagEvent::Outside { text: "a".into(), span },
///     TagEvent::Outside { text: "b".into(), span },
/// ];
/// assert_eq!(steps(&events), [Step::Outside("ab".into())]);
/// ```
pub fn steps(events: &[TagEvent]) -> Vec<Step> {
    let mut out = Vec::new();
    for event in events {
        push(
            &mut out,
            match event {
                TagEvent::Outside { text, .. } => Step::Outside(text.clone()),
                TagEvent::Open { tag, .. } => Step::Open(*tag),
                TagEvent::Text { tag, text, .. } => Step::Text(*tag, text.clone()),
                TagEvent::Close { tag, .. } => Step::Close(*tag),
            },
        );
    }
    out
}

/// The steps of `text` under `pairs`, and the unclosed pair with its start marker's byte
/// offset, if one is left open.
///
/// ```
/// use extract_between::testing::tags::{Step, reference};
/// let pairs = [("<".to_owned(), ">".to_owned())];
/// let (steps, unclosed) = reference("a<b>", &pairs);
/// assert_eq!(steps, [Step::Outside("a".into()), Step::Open(0), Step::Text(0, "b".into()), Step::Close(0)]);
/// assert_eq!(unclosed, None);
/// ```
pub fn reference(text: &str, pairs: &[(String, String)]) -> (Vec<Step>, Option<(usize, usize)>) {
    let mut steps = Vec::new();
    let mut i = 0;
    let mut outside_from = 0;
    while i < text.len() {
        let rest = &text[i..];
        let open = pairs
            .iter()
            .enumerate()
            .filter(|(_, (start, _))| rest.starts_with(start.as_str()))
            .max_by_key(|(_, (start, _))| start.len());
        let Some((tag, (start, end))) = open else {
            i += rest.chars().next().map_or(1, char::len_utf8);
            continue;
        };
        if outside_from < i {
            push(&mut steps, Step::Outside(text[outside_from..i].to_owned()));
        }
        push(&mut steps, Step::Open(tag));
        let content = i + start.len();
        match text[content..].find(end.as_str()) {
            None => {
                if content < text.len() {
                    push(&mut steps, Step::Text(tag, text[content..].to_owned()));
                }
                return (steps, Some((tag, i)));
            }
            Some(at) => {
                if at > 0 {
                    push(
                        &mut steps,
                        Step::Text(tag, text[content..content + at].to_owned()),
                    );
                }
                push(&mut steps, Step::Close(tag));
                i = content + at + end.len();
                outside_from = i;
            }
        }
    }
    if outside_from < text.len() {
        push(&mut steps, Step::Outside(text[outside_from..].to_owned()));
    }
    (steps, None)
}

/// A tag scanner that appends chunks of at most `whole_chunk` bytes to its carry whole and
/// decides the carry with the first bytes of longer ones (its default is 4096 bytes, longer
/// than the cases).
///
/// ```
/// use extract_between::tags::{TagEvents, TagSet};
/// let mut s = extract_between::testing::tags::scanner(&TagSet::new([("[", "]")]).unwrap(), 0);
/// assert!(s.feed(b"x[a]", &mut TagEvents::new()).unwrap().is_continue());
/// ```
pub fn scanner(tags: &TagSet, whole_chunk: usize) -> TagScanner {
    TagScanner::new(tags).with_whole_chunk(whole_chunk)
}

/// A random text, 1 to 4 pairs with distinct starts (often taken from the text, often
/// sharing a prefix), and a chunk plan that cuts characters and markers anywhere.
#[derive(Clone, Debug)]
pub struct TagCase {
    /// The text.
    pub text: String,
    /// The pairs.
    pub pairs: Vec<(String, String)>,
    /// Chunk sizes in bytes, cycled.
    pub chunks: Vec<usize>,
    /// Chunks up to this size join a carry whole (see [`scanner`]).
    pub whole_chunk: usize,
}

fn pieces(g: &mut Gen, max: usize) -> String {
    let n = usize::arbitrary(g) % (max + 1);
    (0..n).map(|_| *g.choose(ALPHABET).unwrap()).collect()
}

fn marker(g: &mut Gen, text: &str, others: &[(String, String)]) -> String {
    let chars: Vec<char> = text.chars().collect();
    match u8::arbitrary(g) % 4 {
        // Another marker lengthened or shortened: starts that share a prefix.
        0 if !others.is_empty() => {
            let base = &g.choose(others).unwrap().0;
            if bool::arbitrary(g) {
                format!("{base}{}", g.choose(ALPHABET).unwrap())
            } else {
                let mut s = base.clone();
                s.pop();
                if s.is_empty() { base.clone() } else { s }
            }
        }
        1 | 2 if !chars.is_empty() => {
            let a = usize::arbitrary(g) % chars.len();
            let len = 1 + usize::arbitrary(g) % 3;
            chars[a..(a + len).min(chars.len())].iter().collect()
        }
        _ => loop {
            let s = pieces(g, 3);
            if !s.is_empty() {
                break s;
            }
        },
    }
}

impl Arbitrary for TagCase {
    fn arbitrary(g: &mut Gen) -> TagCase {
        let size = g.size();
        let text = pieces(g, size);
        let n = 1 + usize::arbitrary(g) % 4;
        let mut pairs: Vec<(String, String)> = Vec::new();
        for _ in 0..n {
            let start = marker(g, &text, &pairs);
            let end = if u8::arbitrary(g) % 5 == 0 && !pairs.is_empty() {
                g.choose(&pairs).unwrap().1.clone()
            } else {
                marker(g, &text, &[])
            };
            if pairs.iter().all(|(s, _)| *s != start) {
                pairs.push((start, end));
            }
        }
        let plan = 1 + usize::arbitrary(g) % 6;
        let chunks = (0..plan).map(|_| 1 + usize::arbitrary(g) % 12).collect();
        let whole_chunk = *g.choose(&[0, 1, 3, 8, 4096]).unwrap();
        TagCase {
            text,
            pairs,
            chunks,
            whole_chunk,
        }
    }

    fn shrink(&self) -> Box<dyn Iterator<Item = TagCase>> {
        super::cases::shrunk(self, &self.text, |c, text| c.text = text)
    }
}
