//! The `merels` binary: everything is in the library; this only hands over the arguments.

fn main() -> std::process::ExitCode {
    merels::cli::main(std::env::args_os())
}
