//! What packagers install beside the binary, made from the same clap definitions as the
//! parser so they cannot drift: shell completions and the man page.

use super::Cli;
use super::stdio::{Exit, write_stdout};
use clap::CommandFactory;
use std::process::ExitCode;

/// `extract-between completions SHELL`: the completion script on stdout.
pub(super) fn completions(shell: clap_complete::Shell) -> ExitCode {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "extract-between", &mut script);
    if shell == clap_complete::Shell::Bash {
        script = bash_states_named_alike(&script).into_bytes();
    }
    written(write_stdout(&script))
}

/// clap_complete's bash script records a subcommand as the state
/// `extract__between__subcmd__serve` but reads it back as
/// `extract__subcmd__between__subcmd__serve` (it escapes the binary name's hyphen two ways),
/// so no subcommand's options would complete: the reading side is named as the recording one.
fn bash_states_named_alike(script: &[u8]) -> String {
    String::from_utf8_lossy(script).replace("extract__subcmd__between", "extract__between")
}

/// `extract-between man [SUBCOMMAND]`: the main page, or a subcommand's own
/// (`extract-between-serve(1)`), as roff on stdout.
pub(super) fn man(page: Option<&str>) -> ExitCode {
    let cli = Cli::command();
    let rendered = match page {
        None => main_page(cli),
        Some(name) => match cli.find_subcommand(name) {
            Some(sub) => subcommand_page(sub.clone()),
            None => {
                let names: Vec<&str> = subcommands(&cli).collect();
                super::stdio::complain(format_args!(
                    "man: no subcommand {name:?}; the pages are those of {}",
                    names.join(", ")
                ));
                return Exit::Error.into();
            }
        },
    };
    match rendered {
        Ok(page) => written(write_stdout(&page)),
        Err(e) => {
            super::stdio::complain(format_args!("man: {e}"));
            Exit::Error.into()
        }
    }
}

/// The subcommands that have a page (`help` has none).
fn subcommands(cli: &clap::Command) -> impl Iterator<Item = &str> {
    cli.get_subcommands()
        .map(clap::Command::get_name)
        .filter(|name| *name != "help")
}

/// `extract-between(1)`: clap_mangen's sections, then EXAMPLES, EXIT STATUS and SEE ALSO
/// written from the same constants as `--help` (in place of clap_mangen's EXTRA).
fn main_page(cli: clap::Command) -> std::io::Result<Vec<u8>> {
    use roff::{Roff, bold, roman};
    let see_also: Vec<String> = subcommands(&cli)
        .map(|name| format!("extract-between-{name}(1)"))
        .collect();
    let man = clap_mangen::Man::new(cli);
    let mut page = Vec::new();
    man.render_title(&mut page)?;
    man.render_name_section(&mut page)?;
    man.render_synopsis_section(&mut page)?;
    man.render_description_section(&mut page)?;
    man.render_options_section(&mut page)?;
    man.render_subcommands_section(&mut page)?;
    let mut more = Roff::new();
    more.control("SH", ["EXAMPLES"]);
    for example in super::args::EXAMPLES {
        more.control("TP", []).text([bold(*example)]);
    }
    more.control("SH", ["NOTES"])
        .text([roman(super::args::NOTES.replace('\n', " "))]);
    more.control("SH", ["EXIT STATUS"])
        .text([roman(super::args::EXIT_STATUS)]);
    more.control("SH", ["ENVIRONMENT"]);
    more.control("TP", []).text([bold("NO_COLOR")]);
    more.text([roman("Set and not empty: no colour under --color auto.")]);
    more.control("TP", []).text([bold("TERM")]);
    more.text([roman("dumb: no colour under --color auto.")]);
    more.control("TP", []).text([bold("EXTRACT_BETWEEN_*")]);
    more.text([roman(
        "serve reads one for each of its options (the option wins): see extract-between-serve(1).",
    )]);
    more.control("SH", ["SEE ALSO"])
        .text([roman(see_also.join(", "))]);
    more.to_writer(&mut page)?;
    man.render_version_section(&mut page)?;
    // clap_mangen writes a repeatable positional without its `...`.
    let page = String::from_utf8_lossy(&page).replacen("[\\fIPATH\\fR]", "[\\fIPATH\\fR]...", 1);
    Ok(page.into_bytes())
}

/// `extract-between-NAME(1)`: the subcommand's options (serve's with their variables).
fn subcommand_page(sub: clap::Command) -> std::io::Result<Vec<u8>> {
    let name = format!("extract-between-{}", sub.get_name());
    let bin = format!("extract-between {}", sub.get_name());
    let man = clap_mangen::Man::new(sub.display_name(name).bin_name(bin))
        .source(concat!("extract-between ", env!("CARGO_PKG_VERSION")));
    let mut page = Vec::new();
    man.render(&mut page)?;
    Ok(page)
}

fn written(result: Result<(), super::stdio::Reported>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(reported) => reported.into(),
    }
}
