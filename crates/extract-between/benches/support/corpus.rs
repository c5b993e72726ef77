//! Generated benchmark corpora (deterministic), each at least 16 MiB.
#![allow(dead_code)]

pub const SIZE: usize = 16 << 20;

/// The measurement settings every bench in this folder uses.
pub fn criterion() -> criterion::Criterion {
    criterion::Criterion::default()
        .sample_size(20)
        .warm_up_time(std::time::Duration::from_millis(500))
        .measurement_time(std::time::Duration::from_secs(3))
        .configure_from_args()
}

/// A tiny deterministic generator so runs are comparable.
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn pick<'a>(&mut self, words: &[&'a str]) -> &'a str {
        words[(self.next() as usize) % words.len()]
    }
}

const WORDS: &[&str] = &[
    "lorem",
    "ipsum",
    "dolor",
    "sit",
    "amet",
    "consectetur",
    "adipiscing",
    "elit",
    "sed",
    "do",
    "eiusmod",
    "tempor",
    "incididunt",
    "ut",
    "labore",
    "et",
    "dolore",
    "magna",
    "aliqua",
];

const CJK: &[&str] = &[
    "東京",
    "日本語",
    "文字列",
    "抽出",
    "検索",
    "テキスト",
    "データ",
    "処理",
    "、",
    "。",
];

/// Dense: a `[`…`]` match about every 80 bytes.
pub fn dense() -> (String, &'static str, &'static str) {
    let mut g = Lcg(1);
    let mut s = String::with_capacity(SIZE + 256);
    while s.len() < SIZE {
        let mut line = String::new();
        while line.len() < 60 {
            line.push_str(g.pick(WORDS));
            line.push(' ');
        }
        s.push_str(&line);
        s.push('[');
        s.push_str(g.pick(WORDS));
        s.push_str(g.pick(WORDS));
        s.push_str("]\n");
    }
    (s, "[", "]")
}

/// Sparse: HTML-like text with a `<title>`…`</title>` about every 64 KiB.
pub fn sparse() -> (String, &'static str, &'static str) {
    let mut g = Lcg(2);
    let mut s = String::with_capacity(SIZE + 70_000);
    while s.len() < SIZE {
        s.push_str("<html><head><title>");
        s.push_str(g.pick(WORDS));
        s.push(' ');
        s.push_str(g.pick(WORDS));
        s.push_str("</title></head><body>\n");
        let page_end = s.len() + 64 * 1024;
        while s.len() < page_end {
            s.push_str("<p class=\"x\">");
            for _ in 0..12 {
                s.push_str(g.pick(WORDS));
                s.push(' ');
            }
            s.push_str("<a href=\"/t\">link</a></p>\n");
        }
        s.push_str("</body></html>\n");
    }
    (s, "<title>", "</title>")
}

/// Unicode: Japanese text with a `「`…`」` quotation about every 200 bytes.
pub fn unicode() -> (String, &'static str, &'static str) {
    let mut g = Lcg(3);
    let mut s = String::with_capacity(SIZE + 256);
    while s.len() < SIZE {
        for _ in 0..20 {
            s.push_str(g.pick(CJK));
        }
        s.push('「');
        s.push_str(g.pick(CJK));
        s.push_str(g.pick(CJK));
        s.push('」');
        if g.next().is_multiple_of(8) {
            s.push('😀');
        }
    }
    (s, "「", "」")
}

/// No marker at all.
pub fn none() -> (String, &'static str, &'static str) {
    let mut g = Lcg(4);
    let mut s = String::with_capacity(SIZE + 256);
    while s.len() < SIZE {
        s.push_str(g.pick(WORDS));
        s.push(if g.next().is_multiple_of(12) {
            '\n'
        } else {
            ' '
        });
    }
    (s, "[", "]")
}

pub fn all() -> Vec<(&'static str, (String, &'static str, &'static str))> {
    vec![
        ("dense", dense()),
        ("sparse", sparse()),
        ("unicode", unicode()),
        ("none", none()),
    ]
}

/// Median estimates (ns) from criterion's saved results: `target/criterion/<group>/<id>`.
pub fn median_ns(group: &str, id: &str) -> Option<f64> {
    let dir = std::env::var("CARGO_TARGET_DIR").unwrap_or_else(|_| "target".into());
    let path = format!("{dir}/criterion/{group}/{id}/new/estimates.json");
    let text = std::fs::read_to_string(path).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    v["median"]["point_estimate"].as_f64()
}

/// Prints a table of throughputs and of ratios against `against`.
pub fn report(
    title: &str,
    groups: &[&str],
    ids: &[&str],
    against: &str,
    bytes: &dyn Fn(&str) -> usize,
) {
    println!("\n{title}: median throughput (GB/s) and ratio to {against}");
    print!("{:<10}", "corpus");
    for id in ids {
        print!(" {id:>22}");
    }
    println!();
    for g in groups {
        print!("{g:<10}");
        let base = median_ns(g, against);
        for id in ids {
            match (median_ns(g, id), base) {
                (Some(ns), Some(b)) => print!(" {:>12.2} ({:>5.2}x)", bytes(g) as f64 / ns, b / ns),
                _ => print!(" {:>22}", "-"),
            }
        }
        println!();
    }
}

/// One timed pass over a corpus, returning something to keep it from being optimised away.
pub type Pass<'a> = Box<dyn FnMut() -> usize + 'a>;

/// Paired rounds: each round runs every pass of a corpus once, one after the other (in
/// reverse order every other round, so that no pass always follows the same one), and
/// takes the time ratios named in `ratios` (`(numerator, denominator, title)`: indices of
/// passes); prints the quartiles of those per-round ratios, a table per ratio. This
/// machine's speed drifts by tens of percent within a run; a ratio taken within one round
/// cancels the drift that criterion's groups, seconds apart, do not.
#[allow(dead_code)]
pub fn paired(bench: &str, ratios: &[(usize, usize, &str)], corpora: Vec<(&str, Vec<Pass<'_>>)>) {
    const ROUNDS: usize = 41;
    let mut tables = vec![Vec::new(); ratios.len()];
    for (corpus, mut passes) in corpora {
        let mut per_round = vec![Vec::with_capacity(ROUNDS); ratios.len()];
        for round in 0..ROUNDS {
            let mut times = vec![0.0; passes.len()];
            let mut order: Vec<usize> = (0..passes.len()).collect();
            if round % 2 == 1 {
                order.reverse();
            }
            for k in order {
                let t = std::time::Instant::now();
                std::hint::black_box(passes[k]());
                times[k] = t.elapsed().as_secs_f64();
            }
            for (r, &(num, den, _)) in per_round.iter_mut().zip(ratios) {
                r.push(times[num] / times[den]);
            }
        }
        for (table, mut r) in tables.iter_mut().zip(per_round) {
            r.sort_by(f64::total_cmp);
            let q = |f: f64| r[((ROUNDS - 1) as f64 * f).round() as usize];
            table.push((corpus, q(0.25), q(0.5), q(0.75)));
        }
    }
    for ((_, _, title), rows) in ratios.iter().zip(tables) {
        println!("\n{bench}, paired: {title} per round, {ROUNDS} rounds");
        println!("{:<10} {:>8} {:>8} {:>8}", "corpus", "q1", "median", "q3");
        for (corpus, q1, median, q3) in rows {
            println!("{corpus:<10} {q1:>7.2}x {median:>7.2}x {q3:>7.2}x");
        }
    }
}
