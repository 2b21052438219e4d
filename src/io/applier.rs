//! What an Argo CD directory application leaves unapplied of the files the build reads, which
//! kubectl applies: a file that holds the marker `+argocd:skip-file-rendering` anywhere in its
//! text, and an object that is a hook no sync that succeeds runs. Their pods may or may not
//! exist, so the model holds their SVIDs only as `may` (docs/review.md, "The gate's rule"):
//! a BASE that may skip an object never surely holds what it gives.

/// The marker whose bytes make Argo CD's repo server pass a file over (argo-cd
/// `reposerver/repository/repository.go`, `skipFileRenderingMarker`, checked with
/// `bytes.Contains` in `getPotentiallyValidManifestFile`).
const SKIP_FILE_MARKER: &str = "+argocd:skip-file-rendering";

/// Whether Argo CD passes over a file of this text.
pub fn skips_file(text: &str) -> bool {
    text.contains(SKIP_FILE_MARKER)
}

/// The hook types Argo CD knows (gitops-engine `pkg/sync/common/types.go`, `NewHookType`).
const ARGO_TYPES: [&str; 5] = ["PreSync", "Sync", "PostSync", "SyncFail", "Skip"];

/// Whether Argo CD may leave an object with these `argocd.argoproj.io/hook` and
/// `helm.sh/hook` annotations unapplied in a sync that succeeds (gitops-engine
/// `pkg/sync/sync_phase.go`, `syncPhases`; `pkg/sync/hook/hook.go`, `Skip`, `IsHook`, `Types`;
/// `pkg/sync/hook/helm/`): a `Skip` hook, and a hook none of whose types is `PreSync`, `Sync`
/// or `PostSync` (`SyncFail` runs only when a sync fails; `PostDelete`, an empty value, and
/// Helm types other than `pre-`/`post-install` and `-upgrade` give none).
pub fn skips_object(argo: Option<&str>, helm: Option<&str>) -> bool {
    // `GetAnnotationCSVs`: comma-separated, trimmed, empty entries and repeats dropped.
    let csv = |value: &str| {
        let mut out: Vec<String> = Vec::new();
        for entry in value.split(',').map(str::trim).filter(|e| !e.is_empty()) {
            if !out.iter().any(|o| o == entry) {
                out.push(entry.to_string());
            }
        }
        out
    };
    let mut types: Vec<String> =
        argo.map(csv).unwrap_or_default().into_iter().filter(|t| ARGO_TYPES.contains(&t.as_str())).collect();
    if types.len() == 1 && types[0] == "Skip" {
        return true;
    }
    let helm_hook = helm.is_some_and(|h| h != "crd-install");
    if argo.is_none() && !helm_hook {
        return false;
    }
    if types.is_empty() {
        types = helm
            .map(csv)
            .unwrap_or_default()
            .into_iter()
            .filter_map(|t| match t.as_str() {
                "pre-install" | "pre-upgrade" => Some("PreSync".to_string()),
                "post-install" | "post-upgrade" => Some("PostSync".to_string()),
                _ => None,
            })
            .collect();
    }
    !types.iter().any(|t| matches!(t.as_str(), "PreSync" | "Sync" | "PostSync"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_objects_no_successful_sync_applies_are_skipped() {
        for (argo, helm) in [
            (Some("Skip"), None),
            (Some(" Skip , Skip"), None),
            (Some("PostDelete"), None),
            (Some(""), None),
            (Some("SyncFail"), None),
            (None, Some("test")),
            (None, Some("pre-delete")),
            (Some("Nonsense"), Some("test-success")),
        ] {
            assert!(skips_object(argo, helm), "{argo:?} {helm:?}");
        }
        for (argo, helm) in [
            (None, None),
            (Some("PreSync"), None),
            (Some("Sync,Skip"), None),
            (Some("PostSync,SyncFail"), None),
            (None, Some("crd-install")),
            (None, Some("post-install,test")),
            (Some("PostDelete"), Some("pre-upgrade")),
        ] {
            assert!(!skips_object(argo, helm), "{argo:?} {helm:?}");
        }
        assert!(skips_file("# +argocd:skip-file-rendering\nkind: X\n"));
        assert!(!skips_file("kind: X\n"));
    }
}
