//! The `merels-bench` binary: everything is in the library; this only hands over the arguments.

fn main() -> std::process::ExitCode {
    merels_bench::cli::main(std::env::args_os())
}
