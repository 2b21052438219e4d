//! What an Argo CD directory application leaves unapplied of the files the build reads, which
//! kubectl applies: a file that holds the marker `+argocd:skip-file-rendering` anywhere in its
//! text, an object that is a hook no sync that succeeds runs, and a hook it deletes once run. Their pods may or may not
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

/// Whether Argo CD deletes a hook it runs once it has run (gitops-engine
/// `pkg/sync/hook/delete_policy.go`, `DeletePolicies`; `pkg/sync/sync_context.go`, the hooks
/// deleted on their phase's success or failure): one whose delete policies, from
/// `argocd.argoproj.io/hook-delete-policy` (`HookSucceeded`, `HookFailed`) or
/// `helm.sh/hook-delete-policy` (`hook-succeeded`, `hook-failed`), say so. A ClusterSPIFFEID
/// has no health to wait for, so it is deleted as soon as it is made. `BeforeHookCreation`
/// (the default) deletes one only to make it again. An object that is no hook has no
/// delete policy.
pub fn deletes_hook(
    argo: Option<&str>,
    helm: Option<&str>,
    argo_delete: Option<&str>,
    helm_delete: Option<&str>,
) -> bool {
    let is_hook = argo.is_some() || helm.is_some_and(|h| h != "crd-install");
    let names = |value: Option<&str>, of: [&str; 2]| {
        value.is_some_and(|v| v.split(',').map(str::trim).any(|p| of.contains(&p)))
    };
    is_hook
        && (names(argo_delete, ["HookSucceeded", "HookFailed"])
            || names(helm_delete, ["hook-succeeded", "hook-failed"]))
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

    #[test]
    fn hooks_deleted_once_run_are_told_apart() {
        for (argo, helm, argo_delete, helm_delete) in [
            (Some("PostSync"), None, Some("HookSucceeded"), None),
            (Some("Sync"), None, Some(" BeforeHookCreation , HookFailed"), None),
            (None, Some("post-install"), None, Some("hook-succeeded")),
            (Some("PreSync"), None, None, Some("hook-failed")),
        ] {
            assert!(
                deletes_hook(argo, helm, argo_delete, helm_delete),
                "{argo:?} {helm:?} {argo_delete:?} {helm_delete:?}"
            );
        }
        for (argo, helm, argo_delete, helm_delete) in [
            (None, None, Some("HookSucceeded"), Some("hook-succeeded")),
            (None, Some("crd-install"), None, Some("hook-succeeded")),
            (Some("PostSync"), None, Some("BeforeHookCreation"), None),
            (Some("PostSync"), None, Some("hook-succeeded"), Some("HookSucceeded")),
            (Some("PostSync"), None, None, None),
        ] {
            assert!(
                !deletes_hook(argo, helm, argo_delete, helm_delete),
                "{argo:?} {helm:?} {argo_delete:?} {helm_delete:?}"
            );
        }
    }
}
