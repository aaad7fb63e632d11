//! volmnt's entry point: parse, run, and turn the outcome into an exit code. Nothing else.

use clap::Parser;

fn main() -> std::process::ExitCode {
    // Shell completion that knows the cluster: `COMPLETE=bash volmnt` prints the registration
    // script, and the shell then calls volmnt with COMPLETE set for each completion; this
    // returns at once when COMPLETE is not set.
    clap_complete::CompleteEnv::with_factory(volmnt::commands::completions::dynamic_command)
        .complete();
    // kubectl's plugin completion (kubectl_complete-volmnt): `volmnt __complete ARGS... WORD`.
    let raw: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if raw.get(1).is_some_and(|a| a == "__complete") {
        print!("{}", volmnt::commands::completions::cobra(&raw[2..]));
        return std::process::ExitCode::SUCCESS;
    }
    // Installed as kubectl-volmnt (kubectl-volmnt.exe), help should read `kubectl volmnt ...`.
    let mut args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let as_plugin = args
        .first()
        .and_then(|a| {
            std::path::Path::new(a)
                .file_name()
                .map(|f| f.to_os_string())
        })
        .is_some_and(|f| f == "kubectl-volmnt");
    if as_plugin {
        args[0] = "kubectl volmnt".into();
    }
    // kubectl's habits (`-n NS` before the subcommand, `pod/NAME`) in volmnt's syntax.
    let args = volmnt::cli::argv::normalize(args);
    let cli = match volmnt::cli::Cli::try_parse_from(args) {
        Ok(mut c) => {
            if as_plugin {
                c.global.invocation = "kubectl volmnt".into();
            }
            c
        }
        // clap prints help/version (exit 0) and usage errors (exit 2) itself.
        Err(e) => e.exit(),
    };
    match volmnt::commands::run(cli) {
        Ok(code) => std::process::ExitCode::from(code.code()),
        Err(e) => {
            eprintln!("volmnt: {e}");
            if let Some(h) = e.hint() {
                eprintln!("hint: {h}");
            }
            std::process::ExitCode::from(e.exit_code().code())
        }
    }
}
