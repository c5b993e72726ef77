//! One text in memory: every match, then the first two with `truncated` saying more exist.
//!
//! `cargo run --example one_shot`

use extract_between::{Extractor, Markers, extract};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let text = "<li>tea</li> <li>coffee</li> <li>water</li>";
    let all = extract(text, "<li>", "</li>")?;
    println!("{:?} truncated={}", all.matches, all.truncated);
    assert_eq!(all.matches, ["tea", "coffee", "water"]);

    // Markers prepared once, a cap as the card's max_matches.
    let first_two = Extractor::new(&Markers::new("<li>", "</li>")?)
        .max_matches(2)?
        .extract(text)?;
    println!("{:?} truncated={}", first_two.matches, first_two.truncated);
    assert!(first_two.truncated);

    // A start marker without its end is an error that says where (in UTF-16 units, as a
    // JavaScript client would slice).
    let err = extract("é<li>open", "<li>", "</li>").unwrap_err();
    println!("{err}");
    Ok(())
}
