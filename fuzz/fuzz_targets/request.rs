//! Arbitrary request bodies through the JSON contract: never a panic, always valid JSON out,
//! and a valid request's output agrees with `extract` on the same fields.
#![no_main]

use extract_between::request::{Outcome, execute, parse};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let reply = execute(data);
    assert!(reply.body.starts_with('{') && reply.body.ends_with('}'));
    match parse(data) {
        Ok(req) => {
            assert_ne!(reply.outcome, Outcome::InvalidInput);
            let ex = extract_between::Extractor::new(&req.markers)
                .max_matches(req.max_matches)
                .unwrap();
            assert_eq!(
                ex.extract(&req.text).is_ok(),
                reply.outcome == Outcome::Output
            );
        }
        Err(e) => {
            assert_eq!(reply.outcome, Outcome::InvalidInput);
            assert!(!e.message.is_empty());
        }
    }
});
