//! The one rule for reading the files and folders named on the command line (`render`,
//! `explain`, `discover`): what a pull request puts in a folder is hostile until read.
//! docs/security.md#reading-untrusted-folders states the rule for users; in short:
//!
//! - Only regular files and folders are read. A FIFO, socket or device whose name would be
//!   read (`*.yaml`, `*.yml`, `*.json`) is an error naming it, and is never opened (the type
//!   is checked before opening; files open non-blocking and are checked again once open).
//! - A path given is followed through a symbolic link of the working folder only to a place
//!   inside that folder that is not hidden ([`check_given`]): `render deploy`, with
//!   `deploy -> /etc` put there by a pull request, is refused; `render ../other` is not.
//! - A symbolic link met in a folder is followed only when its target, resolved, lies
//!   inside one of the paths given (the roots) and is not hidden there (`.git/config`). A
//!   link that would be read (a folder, or a manifest name) and points elsewhere is an error
//!   naming the link; its target is never opened or quoted. A link whose target is missing
//!   is an error too: it may have named a folder of manifests. Links are followed after the
//!   folders themselves are walked, so a file keeps its own name when a link also reaches it.
//! - Each file and folder is read once (by device and inode): links back into the tree
//!   (`ln -s . d`) add nothing and cannot loop.
//! - Nothing is skipped silently: an entry that cannot be examined (a path too long to
//!   open, say) is an error naming it. Hidden entries (`.name`) inside folders and names
//!   without a manifest extension are not manifests; the hidden and `.krmignore`d manifest
//!   files and links are listed apart ([`walk`], [`Passed`]), for `diff` to judge what kubectl
//!   would apply, and so are the Jsonnet files an Argo CD directory application evaluates
//!   ([`is_evaluated_name`]), wherever they stand. A manifest name's extension is Go's
//!   `filepath.Ext`, as kubectl and Argo CD take it: a file named `.yaml` is one.
//! - All input together (files and standard input) is held to [`yaml::MAX_INPUT_BYTES`],
//!   counted while reading: no file is read past the limit.
//! - A file holding a control character YAML never allows (NUL, ESC, ...) is refused as not
//!   YAML text, without quoting it: an environment block or a binary is never excerpted.
//! - Names in messages and in `discover`'s output go through [`quote`], so a name cannot
//!   forge a line.
//! - A folder's `.krmignore` is honoured as kpt honours it (gitignore patterns, read with
//!   the `ignore` crate): what kpt leaves out of a package (its `schema.json`, say) is not
//!   a manifest here either.

use crate::yaml::MAX_INPUT_BYTES;
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use std::collections::{HashSet, VecDeque};
use std::fmt::Write as _;
use std::fs::{self, File, Metadata};
use std::io::Read;
use std::os::unix::ffi::OsStrExt as _;
use std::os::unix::fs::{FileTypeExt as _, MetadataExt as _, OpenOptionsExt as _};
use std::path::{Path, PathBuf};

/// Extensions of the files read from folders.
pub const EXTENSIONS: [&str; 3] = ["yaml", "yml", "json"];

/// A file and inode: what "read once" counts.
type Id = (u64, u64);

fn id(meta: &Metadata) -> Id {
    (meta.dev(), meta.ino())
}

/// Why a link passed over leads to no file the build may read: outside the folders given.
pub const OUTSIDE: &str = "a symbolic link that points outside the folders given";

/// A file to read: its name as the user reaches it, and what it was when found.
#[derive(Debug, Clone)]
pub struct Found {
    pub path: PathBuf,
    /// The index of the path given it was found under.
    pub root: usize,
    id: Id,
}

/// The files under `paths` to read, in a stable order: the paths in the order given; in a
/// folder, entries by name (bytes), folders walked where they stand; files reached only
/// through a link come after the others. In folders, the files whose names `wanted` takes
/// are listed ([`is_manifest_name`], say); `skip` (the config files) never are.
pub fn find(paths: &[PathBuf], skip: &[PathBuf], wanted: fn(&Path) -> bool) -> Result<Vec<Found>, String> {
    Ok(walk(paths, skip, wanted)?.files)
}

/// What a walk of the paths given found: the files to read ([`find`]), and the entries it
/// passed over that an applier reads all the same: manifest files and links hidden (outside
/// `.git`) or left out by a `.krmignore`, which kpt skips and `kubectl apply -R` reads (with
/// the names the walk takes, a kustomization among them), and Jsonnet files
/// ([`is_evaluated_name`]), which an Argo CD directory application evaluates.
pub struct Walked {
    pub files: Vec<Found>,
    pub passed_over: Vec<Passed>,
}

/// An entry the walk passed over and an applier reads.
#[derive(Debug, Clone)]
pub struct Passed {
    /// The entry as found.
    pub path: PathBuf,
    /// For a symbolic link, its target as written.
    pub link: Option<PathBuf>,
    /// What reading it reads ([`read_bytes`]): the entry, held to the regular file found (a
    /// link's target, inside the folders given); for a link that leads to no such file, why.
    pub found: Result<Found, String>,
}

/// [`find`], with the manifest files it passed over.
pub fn walk(paths: &[PathBuf], skip: &[PathBuf], wanted: fn(&Path) -> bool) -> Result<Walked, String> {
    let mut walk = Walk {
        passed_over: Vec::new(),
        wanted,
        roots: Vec::new(),
        seen: HashSet::new(),
        files: Vec::new(),
        links: VecDeque::new(),
        root: 0,
        ignores: Vec::new(),
    };
    for path in skip {
        if let Ok(meta) = fs::metadata(path) {
            walk.seen.insert(id(&meta));
        }
    }
    let mut metas = Vec::with_capacity(paths.len());
    for path in paths {
        check_given(path)?;
        let meta = fs::metadata(path).map_err(|e| unreadable(path, &e))?;
        let root = fs::canonicalize(path).map_err(|e| unreadable(path, &e))?;
        walk.roots.push(root);
        metas.push(meta);
    }
    for (root, (path, meta)) in paths.iter().zip(&metas).enumerate() {
        walk.root = root;
        if meta.is_dir() {
            if walk.seen.insert(id(meta)) {
                walk.folder(path)?;
            }
        } else if meta.is_file() {
            walk.take(path, meta);
        } else {
            return Err(special(path, meta));
        }
    }
    while let Some((root, link)) = walk.links.pop_front() {
        walk.root = root;
        walk.follow(&link)?;
    }
    Ok(Walked { files: walk.files, passed_over: walk.passed_over })
}

struct Walk {
    /// Which names in folders are read.
    wanted: fn(&Path) -> bool,
    /// The paths given, resolved: links may point inside them and nowhere else.
    roots: Vec<PathBuf>,
    /// Folders and files taken.
    seen: HashSet<Id>,
    files: Vec<Found>,
    /// Links met (with the root they were met under), followed once the folders are walked.
    links: VecDeque<(usize, PathBuf)>,
    /// The root being walked.
    root: usize,
    /// Each folder's `.krmignore`, for the entries under it.
    ignores: Vec<(PathBuf, Gitignore)>,
    /// Manifest files and links not read: hidden, or left out by a `.krmignore`.
    passed_over: Vec<Passed>,
}

/// The file kpt reads a package's ignore patterns from.
const KRMIGNORE: &str = ".krmignore";

/// Most bytes of a `.krmignore` read.
const KRMIGNORE_MAX: u64 = 64 << 10;

impl Walk {
    fn folder(&mut self, dir: &Path) -> Result<(), String> {
        let entries = sorted_entries(dir)?;
        if entries.iter().any(|e| e.file_name().is_some_and(|n| n == KRMIGNORE)) {
            self.ignores.push((dir.to_path_buf(), krmignore(dir)?));
        }
        for entry in entries {
            let hidden = entry.file_name().is_some_and(|n| n.as_bytes().starts_with(b"."));
            if hidden && entry.file_name().is_some_and(|n| n == ".git") {
                continue;
            }
            let meta = fs::symlink_metadata(&entry).map_err(|e| unreadable(&entry, &e))?;
            let kind = meta.file_type();
            if hidden || self.ignored(&entry, kind.is_dir()) {
                self.pass_over(&entry, &meta)?;
                continue;
            }
            if kind.is_symlink() {
                self.links.push_back((self.root, entry));
            } else if kind.is_dir() {
                if self.seen.insert(id(&meta)) {
                    self.folder(&entry)?;
                }
            } else if (self.wanted)(&entry) {
                if !kind.is_file() {
                    return Err(special(&entry, &meta));
                }
                self.take(&entry, &meta);
            } else if kind.is_file() && is_evaluated_name(&entry) {
                self.pass_file(&entry, &meta);
            }
        }
        Ok(())
    }

    /// Notes the entries at `entry`, a file, a link or a folder walked whole (`.git` left
    /// alone), that are not read: files and links with a manifest or Jsonnet name, or one the
    /// walk takes. A link to a folder is not walked, as `kubectl apply -R` walks none.
    fn pass_over(&mut self, entry: &Path, meta: &Metadata) -> Result<(), String> {
        let kind = meta.file_type();
        if kind.is_dir() {
            if self.seen.insert(id(meta)) {
                for e in sorted_entries(entry)?.iter().filter(|e| e.file_name().is_none_or(|n| n != ".git")) {
                    let meta = fs::symlink_metadata(e).map_err(|err| unreadable(e, &err))?;
                    self.pass_over(e, &meta)?;
                }
            }
        } else if (self.wanted)(entry) || is_manifest_name(entry) || is_evaluated_name(entry) {
            if kind.is_symlink() {
                self.pass_link(entry);
            } else if kind.is_file() {
                self.pass_file(entry, meta);
            }
        }
        Ok(())
    }

    fn pass_file(&mut self, path: &Path, meta: &Metadata) {
        let found = Found { path: path.to_path_buf(), root: self.root, id: id(meta) };
        self.passed_over.push(Passed { path: path.to_path_buf(), link: None, found: Ok(found) });
    }

    /// Notes a link passed over, followed as kubectl and Argo CD follow it: to the regular
    /// file it leads to, whatever that file's name, when it lies inside the folders given.
    fn pass_link(&mut self, link: &Path) {
        let found = self.link_target(link).map(|meta| Found {
            path: link.to_path_buf(),
            root: self.root,
            id: id(&meta),
        });
        let holds = fs::read_link(link).unwrap_or_default();
        self.passed_over.push(Passed { path: link.to_path_buf(), link: Some(holds), found });
    }

    /// The regular file `link` leads to inside the roots, or why it leads to none. Nothing
    /// under `.git` is read, there as anywhere.
    fn link_target(&self, link: &Path) -> Result<Metadata, String> {
        let target = fs::canonicalize(link).map_err(|e| broken_link(&e))?;
        let inside = self.inside(&target);
        if inside.is_empty() {
            return Err(OUTSIDE.to_string());
        }
        if inside.iter().all(|p| p.components().any(|c| c.as_os_str() == ".git")) {
            return Err("a symbolic link into .git, which is never read".to_string());
        }
        let meta = fs::metadata(&target)
            .map_err(|e| format!("a symbolic link whose target cannot be examined ({e})"))?;
        if !meta.is_file() {
            return Err("a symbolic link to something other than a regular file".to_string());
        }
        Ok(meta)
    }

    /// `target`, resolved, relative to each root it lies under.
    fn inside<'t>(&self, target: &'t Path) -> Vec<&'t Path> {
        self.roots.iter().filter_map(|root| target.strip_prefix(root).ok()).collect()
    }

    /// Whether a `.krmignore` of a folder above `path` leaves it out.
    fn ignored(&self, path: &Path, is_dir: bool) -> bool {
        self.ignores.iter().any(|(base, patterns)| {
            path.starts_with(base) && patterns.matched_path_or_any_parents(path, is_dir).is_ignore()
        })
    }

    /// A link met in a folder: followed when it stays inside the roots and out of their
    /// hidden entries. A link named as a Jsonnet file is passed over, as the file would be.
    fn follow(&mut self, link: &Path) -> Result<(), String> {
        let evaluated = !(self.wanted)(link) && is_evaluated_name(link);
        let manifest = (self.wanted)(link) || evaluated;
        let target = fs::canonicalize(link).map_err(|e| unfollowable(link, &e, manifest))?;
        let meta = fs::metadata(&target).map_err(|e| unreadable(link, &e))?;
        if !(meta.is_dir() || manifest) {
            return Ok(());
        }
        let under = self.inside(&target);
        if under.is_empty() {
            return Err(format!(
                "{}: a symbolic link that points outside the folders given; links are followed only \
                 inside them. Remove the link, or name its target as a path of its own",
                quote(link)
            ));
        }
        if under.iter().all(|inside| is_hidden(inside)) {
            return Err(format!(
                "{}: a symbolic link to a hidden entry (a name starting with \".\", such as .git), \
                 which is never read. Remove the link, or name its target as a path of its own",
                quote(link)
            ));
        }
        if meta.is_dir() {
            if self.seen.insert(id(&meta)) {
                self.folder(link)?;
            }
        } else if meta.is_file() && evaluated {
            self.pass_link(link);
        } else if meta.is_file() {
            self.take(link, &meta);
        } else {
            return Err(special(link, &meta));
        }
        Ok(())
    }

    fn take(&mut self, path: &Path, meta: &Metadata) {
        if self.seen.insert(id(meta)) {
            self.files.push(Found { path: path.to_path_buf(), root: self.root, id: id(meta) });
        }
    }
}

/// The entries of folder `dir`, in byte order of their names.
fn sorted_entries(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let reading = |e: std::io::Error| unreadable(dir, &e);
    let mut entries = Vec::new();
    for entry in fs::read_dir(dir).map_err(reading)? {
        entries.push(entry.map_err(reading)?.path());
    }
    entries.sort_by(|a, b| a.as_os_str().as_bytes().cmp(b.as_os_str().as_bytes()));
    Ok(entries)
}

/// The patterns of `dir`'s `.krmignore`: a regular file, opened as every file is (never a
/// FIFO that could block), of at most 64 KiB.
fn krmignore(dir: &Path) -> Result<Gitignore, String> {
    let path = dir.join(KRMIGNORE);
    let reading = |e: std::io::Error| format!("reading {}: {e}", quote(&path));
    let meta = fs::symlink_metadata(&path).map_err(reading)?;
    if !meta.is_file() {
        return Err(format!("{}: kpt's ignore file must be a regular file", quote(&path)));
    }
    let mut text = String::new();
    open(&path).map_err(reading)?.take(KRMIGNORE_MAX).read_to_string(&mut text).map_err(reading)?;
    let mut patterns = GitignoreBuilder::new(dir);
    for line in text.lines() {
        patterns.add_line(None, line).map_err(|e| format!("{}: {e}", quote(&path)))?;
    }
    patterns.build().map_err(|e| format!("{}: {e}", quote(&path)))
}

/// Whether a name in a folder is a manifest's: `.yaml`, `.yml` or `.json`, by [`extension`].
pub fn is_manifest_name(path: &Path) -> bool {
    extension(path).is_some_and(|e| EXTENSIONS.contains(&e))
}

/// A name's extension as Go's `filepath.Ext` gives it, which kubectl (cli-runtime
/// `pkg/resource/visitor.go`, `ignoreFile`) and Argo CD (argo-cd
/// `reposerver/repository/repository.go`, `manifestFile`) match: what follows the last dot of
/// the name, so a file named `.yaml` has the extension `yaml` (Rust's `Path::extension` has
/// none: a leading dot starts the stem).
fn extension(path: &Path) -> Option<&str> {
    let name = path.file_name()?.as_bytes();
    let dot = name.iter().rposition(|&b| b == b'.')?;
    std::str::from_utf8(&name[dot + 1..]).ok()
}

/// Extensions of the Jsonnet files an Argo CD directory application evaluates into the
/// objects it applies (`.jsonnet`: argo-cd `reposerver/repository/repository.go`,
/// `manifestFile` and `findManifests`), and of the libraries those import (`.libsonnet`).
pub const EVALUATED: [&str; 2] = ["jsonnet", "libsonnet"];

/// Whether a name in a folder is a Jsonnet file's ([`EVALUATED`]): never read as a manifest,
/// listed among the files passed over.
pub fn is_evaluated_name(path: &Path) -> bool {
    extension(path).is_some_and(|e| EVALUATED.contains(&e))
}

/// The error for an entry that is not a regular file or folder.
fn special(path: &Path, meta: &Metadata) -> String {
    let kind = meta.file_type();
    let what = if kind.is_fifo() {
        "a FIFO (named pipe)"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_char_device() || kind.is_block_device() {
        "a device"
    } else {
        "not a regular file"
    };
    format!("{}: {what}; only regular files and folders are read, so it is refused", quote(path))
}

/// Whether a path (relative to a folder given) passes through a hidden entry.
pub fn is_hidden(path: &Path) -> bool {
    path.components().any(|c| c.as_os_str().as_bytes().starts_with(b"."))
}

/// The error for an entry that cannot be examined or read, with what to do when the
/// system's words say nothing of it.
fn unreadable(path: &Path, e: &std::io::Error) -> String {
    match e.raw_os_error() {
        Some(libc::ENAMETOOLONG) => format!(
            "{}: the path is longer than the system can open ({e}), so the files under it cannot be \
             read; shorten the folder names, or leave the folder out with a .krmignore entry",
            quote(path)
        ),
        Some(libc::EACCES) => format!(
            "{}: not readable by this user ({e}); give read permission, or leave it out with a \
             .krmignore entry",
            quote(path)
        ),
        _ => format!("reading {}: {e}", quote(path)),
    }
}

/// The error for a symbolic link whose target cannot be resolved: missing, looping, or
/// too long. Whatever its name, it may have named a folder of manifests.
fn unfollowable(link: &Path, e: &std::io::Error, manifest: bool) -> String {
    let what = broken_link(e);
    let lost = if manifest {
        "the manifest it names cannot be read"
    } else {
        "if it named a folder, the manifests there would be left out"
    };
    format!(
        "{}: {what}; {lost}, so the run stops. Fix or remove the link, or leave it out with a \
         .krmignore entry",
        quote(link)
    )
}

/// What is wrong with a link that does not resolve.
fn broken_link(e: &std::io::Error) -> String {
    if e.kind() == std::io::ErrorKind::NotFound {
        "a symbolic link whose target does not exist".to_string()
    } else {
        format!("a symbolic link that cannot be followed ({e})")
    }
}

/// Checks a path named on the command line (a root, `--config`, a side of `diff`): a
/// symbolic link of the working folder may lead it only to a place inside that folder and
/// not hidden there. A pull request can replace a folder that CI or a hook names
/// (`deploy`) by a link to `/etc`, or a file by a link to `.git/config`; a path whose
/// resolution meets no such link (`../other`, `/srv/manifests`, `.github/x.yaml`) is taken
/// as given. The path is resolved a component at a time as the system resolves it (`..`
/// after a link climbs from the link's target).
pub fn check_given(path: &Path) -> Result<(), String> {
    use std::path::Component;
    let Ok(cwd) = fs::canonicalize(".") else { return Ok(()) };
    let mut at = if path.is_absolute() { PathBuf::from("/") } else { cwd.clone() };
    let mut link: Option<PathBuf> = None;
    let mut given = PathBuf::new();
    for component in path.components() {
        given.push(component);
        match component {
            Component::Normal(name) => {
                let next = at.join(name);
                let Ok(meta) = fs::symlink_metadata(&next) else { return Ok(()) };
                if !meta.file_type().is_symlink() {
                    at = next;
                    continue;
                }
                if link.is_none() && next.starts_with(&cwd) {
                    link = Some(given.clone());
                }
                at = fs::canonicalize(&next).map_err(|e| {
                    format!("{}: {}; fix the link, or name another path", quote(&given), broken_link(&e))
                })?;
            }
            Component::ParentDir => {
                at.pop();
            }
            Component::RootDir => at = PathBuf::from("/"),
            Component::CurDir | Component::Prefix(_) => {}
        }
    }
    let Some(link) = link else { return Ok(()) };
    let place = match at.strip_prefix(&cwd) {
        Err(_) => "out of it",
        Ok(inside) if is_hidden(inside) => "to a hidden entry (a name starting with \".\", such as .git)",
        Ok(_) => return Ok(()),
    };
    let through = if link == path { String::new() } else { format!("reached through {}, ", quote(&link)) };
    Err(format!(
        "{}: {through}a symbolic link in the working folder that leads {place}; a path given is \
         followed through a link of the working folder only to a place inside it that is not \
         hidden. Name the place by its real path if you mean it",
        quote(path)
    ))
}

/// What is left of the input limit, shared by every file (and standard input) of a run.
#[derive(Debug)]
pub struct Budget {
    left: usize,
}

impl Default for Budget {
    fn default() -> Self {
        Budget { left: MAX_INPUT_BYTES }
    }
}

impl Budget {
    /// Counts `bytes` already read (standard input) against the limit.
    pub fn spend(&mut self, bytes: usize) {
        self.left = self.left.saturating_sub(bytes);
    }

    fn over(path: &Path) -> String {
        format!(
            "{}: the input goes over the limit of {MAX_INPUT_BYTES} bytes (128 MiB) with this file, \
             counting every file read before it; render fewer or smaller files at a time",
            quote(path)
        )
    }
}

/// Reads a file found by [`find`] as text, within what is left of `budget`. The file opens
/// non-blocking and must still be the regular file that was found.
pub fn read(found: &Found, budget: &mut Budget) -> Result<String, String> {
    yaml_text(&found.path, read_bytes(found, budget)?)
}

/// Reads a file found by [`find`] (or passed over: [`Passed`]) as it is, within what is left
/// of `budget`, as [`read`] does.
pub fn read_bytes(found: &Found, budget: &mut Budget) -> Result<Vec<u8>, String> {
    let path = &found.path;
    let reading = |e: std::io::Error| unreadable(path, &e);
    let file = open(path).map_err(reading)?;
    let meta = file.metadata().map_err(reading)?;
    if !meta.is_file() || id(&meta) != found.id {
        return Err(format!(
            "{}: changed while being read; run again on a tree nobody is changing",
            quote(path)
        ));
    }
    bytes_within(path, file, meta.len(), budget)
}

/// Reads a file named on the command line on its own (`--config`, a side of `diff`): a
/// path given ([`check_given`]) to a regular file, within `budget`.
pub fn read_named(path: &Path, budget: &mut Budget) -> Result<String, String> {
    check_given(path)?;
    read_file(path, budget)
}

/// Reads a file whose place the caller has checked (a Kptfile, its `configPath`): a
/// regular file, within `budget`.
pub fn read_file(path: &Path, budget: &mut Budget) -> Result<String, String> {
    let meta = fs::metadata(path).map_err(|e| unreadable(path, &e))?;
    if !meta.is_file() {
        return Err(special(path, &meta));
    }
    read(&Found { path: path.to_path_buf(), root: 0, id: id(&meta) }, budget)
}

/// How a file found by the walk opens: without waiting for a writer, should a FIFO have
/// taken its place since, and without becoming this process's terminal, should a terminal.
const OPEN_FLAGS: i32 = libc::O_NONBLOCK | libc::O_NOCTTY;

fn open(path: &Path) -> std::io::Result<File> {
    fs::OpenOptions::new().read(true).custom_flags(OPEN_FLAGS).open(path)
}

/// Reads `file`, of `len` bytes by its metadata, within what is left of `budget`: a file
/// already over it is not read at all, and no file is read past it.
fn bytes_within(path: &Path, file: impl Read, len: u64, budget: &mut Budget) -> Result<Vec<u8>, String> {
    if len > budget.left as u64 {
        return Err(Budget::over(path));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    file.take(budget.left as u64 + 1).read_to_end(&mut bytes).map_err(|e| unreadable(path, &e))?;
    if bytes.len() > budget.left {
        return Err(Budget::over(path));
    }
    budget.left -= bytes.len();
    Ok(bytes)
}

/// The bytes of the file at `path` as YAML text: UTF-8 holding no control character YAML
/// never allows ([`not_yaml`]), which is refused without quoting it.
pub fn yaml_text(path: &Path, bytes: Vec<u8>) -> Result<String, String> {
    let text = String::from_utf8(bytes).map_err(|e| format!("{}: not UTF-8 text: {e}", quote(path)))?;
    match not_yaml(&text) {
        None => Ok(text),
        Some((c, line, column)) => Err(format!(
            "{}: not YAML text: it holds the control character U+{:04X} (line {line}, column {column}), \
             which YAML never allows, so it is no manifest; its content is not shown",
            quote(path),
            u32::from(c)
        )),
    }
}

/// The first character of `text` that YAML allows nowhere (C0 controls other than tab,
/// line feed and carriage return, DEL, and the C1 controls other than NEL), with its line
/// and column; `None` for text YAML can hold. An environment block, a binary or a
/// terminal escape is caught here, before a parser's error quotes its first lines.
fn not_yaml(text: &str) -> Option<(char, usize, usize)> {
    // By bytes: in UTF-8 the C1 controls are 0xC2 followed by 0x80..=0x9F (NEL is 0x85).
    let bytes = text.as_bytes();
    let at = (0..bytes.len()).find(|&i| match bytes[i] {
        b'\t' | b'\n' | b'\r' => false,
        b => b < 0x20 || b == 0x7f || (b == 0xc2 && matches!(bytes[i + 1], 0x80..=0x84 | 0x86..=0x9f)),
    })?;
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let column = before[before.rfind('\n').map_or(0, |i| i + 1)..].chars().count() + 1;
    Some((text[at..].chars().next()?, line, column))
}

/// Standard input as bytes, read to the input limit and no further: `None` when it holds
/// more.
pub fn read_stdin() -> std::io::Result<Option<Vec<u8>>> {
    let mut bytes = Vec::new();
    std::io::stdin().lock().take(MAX_INPUT_BYTES as u64 + 1).read_to_end(&mut bytes)?;
    Ok((bytes.len() <= MAX_INPUT_BYTES).then_some(bytes))
}

/// The message for standard input over the limit.
pub fn stdin_too_large() -> String {
    format!(
        "standard input holds more than the limit of {MAX_INPUT_BYTES} bytes (128 MiB); pass less at a time"
    )
}

/// A path as messages and `discover` print it: UTF-8 text as it is, but control
/// characters (`\n`, `\t`, `\u{1b}`), the line and paragraph separators and the bidi
/// controls escaped as Rust escapes them, a backslash doubled, and bytes that are not
/// UTF-8 as `\xNN`. A name then never starts a line of its own or hides what it is, and
/// the text read back names the same bytes.
pub fn quote(path: &Path) -> String {
    let mut out = String::new();
    for chunk in path.as_os_str().as_bytes().utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\\' => out.push_str("\\\\"),
                c if needs_escape(c) => out.extend(c.escape_default()),
                c => out.push(c),
            }
        }
        for byte in chunk.invalid() {
            let _ = write!(out, "\\x{byte:02x}");
        }
    }
    out
}

fn needs_escape(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{2028}' | '\u{2029}' | '\u{200e}' | '\u{200f}' | '\u{061c}')
        || ('\u{202a}'..='\u{202e}').contains(&c)
        || ('\u{2066}'..='\u{2069}').contains(&c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsStr;

    /// A file that fails the test when read.
    struct Unread;

    impl Read for Unread {
        fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
            panic!("read although its size is over what is left of the limit")
        }
    }

    #[test]
    fn a_file_over_what_is_left_is_never_read() {
        let mut budget = Budget { left: 10 };
        let err = bytes_within(Path::new("big.yaml"), Unread, 11, &mut budget).unwrap_err();
        assert!(err.starts_with("big.yaml: the input goes over the limit"), "{err}");
        assert_eq!(budget.left, 10);
        // A file that grows past its size while read is read to the limit and no further.
        let err = bytes_within(Path::new("growing.yaml"), std::io::repeat(b'#'), 5, &mut budget).unwrap_err();
        assert!(err.contains("over the limit"), "{err}");
        // What is left exactly is read, and spent.
        assert_eq!(
            bytes_within(Path::new("a.yaml"), &b"#123456789"[..], 10, &mut budget).as_deref(),
            Ok(&b"#123456789"[..])
        );
        assert_eq!(budget.left, 0);
    }

    #[test]
    fn a_manifest_name_is_one_by_go_s_extension() {
        // Go's `filepath.Ext`: what follows the last dot, a leading one too.
        for name in ["a.yaml", "x/b.yml", "c.d.json", ".yaml", ".yml", "sub/.json", "..yaml"] {
            assert!(is_manifest_name(Path::new(name)), "{name}");
        }
        for name in ["yaml", "a.yaml.txt", "W.YAML", "Kustomization", ".yaml.bak"] {
            assert!(!is_manifest_name(Path::new(name)), "{name}");
        }
        assert!(is_evaluated_name(Path::new(".jsonnet")) && is_evaluated_name(Path::new("l.libsonnet")));
        assert!(!is_evaluated_name(Path::new("a.json")));
    }

    #[test]
    fn text_yaml_never_holds_is_found_with_its_place() {
        assert_eq!(not_yaml("a: b\n\tc: \"d\"\r\n# \u{85} \u{a0} \u{feff}\n"), None);
        assert_eq!(not_yaml("a=b\0c"), Some(('\0', 1, 4)));
        assert_eq!(not_yaml("a: b\nc: \u{1b}[31m"), Some(('\u{1b}', 2, 4)));
        assert_eq!(not_yaml("ü\u{7f}"), Some(('\u{7f}', 1, 2)));
        assert_eq!(not_yaml("x\u{80}"), Some(('\u{80}', 1, 2)));
        assert_eq!(not_yaml("\u{9f}"), Some(('\u{9f}', 1, 1)));
        // 0xC2 leads other characters too: U+00A0..U+00BF are text.
        assert_eq!(not_yaml("\u{a0}\u{bf}"), None);
    }

    /// A folder of its own under the system's temporary folder, removed at the end.
    struct Scratch(PathBuf);

    impl Scratch {
        fn new(label: &str) -> Scratch {
            let dir = std::env::temp_dir().join(format!("rii-files-{label}-{}", std::process::id()));
            let _ = fs::remove_dir_all(&dir);
            fs::create_dir_all(&dir).unwrap();
            Scratch(dir)
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn a_file_replaced_after_it_was_found_is_not_read() {
        let dir = Scratch::new("replaced");
        let path = dir.0.join("a.yaml");
        fs::write(&path, "a: 1\n").unwrap();
        let found = Found { path: path.clone(), root: 0, id: id(&fs::metadata(&path).unwrap()) };
        // Another file takes its name between the walk and the read.
        fs::write(dir.0.join("b.yaml"), "b: 2\n").unwrap();
        fs::rename(dir.0.join("b.yaml"), &path).unwrap();
        let err = read(&found, &mut Budget::default()).unwrap_err();
        assert!(
            err.ends_with("a.yaml: changed while being read; run again on a tree nobody is changing"),
            "{err}"
        );
        let found = Found { id: id(&fs::metadata(&path).unwrap()), ..found };
        assert_eq!(read(&found, &mut Budget::default()).as_deref(), Ok("b: 2\n"));
    }

    #[test]
    fn a_fifo_opens_without_waiting_for_a_writer() {
        // The walk refuses a FIFO before it opens anything; one put in a file's place after
        // the walk must not block the open either.
        let dir = Scratch::new("fifo");
        let fifo = dir.0.join("x.yaml");
        let name = std::ffi::CString::new(fifo.as_os_str().as_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
        let (sent, opened) = std::sync::mpsc::channel();
        std::thread::spawn(move || sent.send(open(&fifo).map(|_| ()).map_err(|e| e.to_string())));
        // A guard against a hang, not a timing: an open that blocks never returns at all.
        let result = opened.recv_timeout(std::time::Duration::from_secs(20));
        assert_eq!(result, Ok(Ok(())), "the open of a FIFO with no writer blocked");
    }

    #[test]
    fn errors_the_system_words_alone_say_what_to_do() {
        let path = Path::new("pkg/a.yaml");
        let denied = unreadable(path, &std::io::Error::from_raw_os_error(libc::EACCES));
        assert!(denied.starts_with("pkg/a.yaml: not readable by this user ("), "{denied}");
        assert!(
            denied.ends_with("); give read permission, or leave it out with a .krmignore entry"),
            "{denied}"
        );
        let long = unreadable(path, &std::io::Error::from_raw_os_error(libc::ENAMETOOLONG));
        assert!(long.starts_with("pkg/a.yaml: the path is longer than the system can open ("), "{long}");
        let other = unreadable(path, &std::io::Error::from_raw_os_error(libc::EIO));
        assert!(other.starts_with("reading pkg/a.yaml: "), "{other}");
    }

    #[test]
    fn quote_escapes_what_could_forge_a_line() {
        assert_eq!(quote(Path::new("a/b.yaml")), "a/b.yaml");
        assert_eq!(quote(Path::new("x\nerror: y.yaml")), "x\\nerror: y.yaml");
        assert_eq!(quote(Path::new("tab\there")), "tab\\there");
        assert_eq!(quote(Path::new("esc\u{1b}[31m")), "esc\\u{1b}[31m");
        assert_eq!(quote(Path::new("back\\slash")), "back\\\\slash");
        assert_eq!(quote(Path::new("rtl\u{202e}lmay.exe")), "rtl\\u{202e}lmay.exe");
        assert_eq!(quote(Path::new("\u{2028}")), "\\u{2028}");
        assert_eq!(quote(Path::new("ünïcode.yaml")), "ünïcode.yaml");
        assert_eq!(quote(Path::new(OsStr::from_bytes(b"bad\xff\xfe.yaml"))), "bad\\xff\\xfe.yaml");
    }
}
