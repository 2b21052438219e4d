//! At a terminal with nothing piped in, the KRM and exec plugin modes say what they read and
//! exit 2 at once. Stdin is a real pseudo-terminal, made by util-linux's `script`.

use crate::common::*;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Runs the binary with `args` on a pseudo-terminal, and kills it if it waits for input.
fn at_terminal(args: &str) -> (Output, Duration) {
    let started = Instant::now();
    let mut child = Command::new(require_tool("script"))
        // -q: no banner; -e: script exits with the command's code; -c: the command.
        .args(["-qec", &format!("'{BIN}' {args}"), "/dev/null"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .env_remove("KUSTOMIZE_PLUGIN_CONFIG_STRING")
        .spawn()
        .expect("script starts");
    while child.try_wait().expect("waiting for script").is_none() {
        if started.elapsed() > Duration::from_secs(20) {
            child.kill().expect("killing script");
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    (child.wait_with_output().expect("script's output"), started.elapsed())
}

#[test]
fn the_krm_mode_at_a_terminal_says_what_it_reads_and_exits_2() {
    let (out, took) = at_terminal("");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    assert!(took < Duration::from_secs(10), "took {took:?}");
    assert!(text.contains("stdin is a terminal"), "{text}");
    assert!(text.contains("config.kubernetes.io/v1 ResourceList"), "{text}");
    assert!(text.contains("kpt fn eval DIR --exec render-inference-identity"), "{text}");
    assert!(text.contains("render-inference-identity --help"), "{text}");
    assert!(!text.contains("not a null"), "{text}");
}

#[test]
fn the_plugin_mode_at_a_terminal_says_what_it_reads_and_exits_2() {
    let tmp = TempDir::new("terminal-plugin");
    let config = tmp.write(
        "RenderInferenceIdentity.yaml",
        &repo_file("fn-config/kustomize/exec-plugin/RenderInferenceIdentity.yaml"),
    );
    let (out, took) = at_terminal(&format!("'{}'", config.display()));
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    assert!(took < Duration::from_secs(10), "took {took:?}");
    assert!(text.contains("stdin is a terminal"), "{text}");
    assert!(text.contains("kustomize exec plugin"), "{text}");
    assert!(text.contains("kubectl kustomize --enable-alpha-plugins"), "{text}");
    assert!(text.contains("render-inference-identity --help"), "{text}");
}

#[test]
fn render_of_stdin_at_a_terminal_says_what_it_reads_and_exits_2() {
    let (out, took) = at_terminal("render --trust-domain example.org -");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    assert!(took < Duration::from_secs(10), "took {took:?}");
    assert!(text.contains("stdin is a terminal"), "{text}");
    assert!(text.contains("kustomize build DIR | render-inference-identity render"), "{text}");
}
