use std::fs::File;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU16, Ordering};
use std::time::{Duration, Instant};

use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, Int32Builder, Int64Array, ListBuilder, RecordBatch, StringBuilder,
    StructBuilder,
};
use datafusion::arrow::compute::concat_batches;
use datafusion::arrow::datatypes::{DataType, Field, Float64Type, Schema};
use datafusion::datasource::MemTable;
use datafusion::parquet::arrow::ArrowWriter;
use datafusion::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use datafusion::prelude::SessionContext;
use pairmetrics::schema::link_fields;

pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

pub fn vectors() -> PathBuf {
    root().join("tests/vectors")
}

pub fn sample() -> PathBuf {
    root().join("data/europarl-sample")
}

pub fn context() -> SessionContext {
    pairmetrics::session::context().unwrap()
}

/// A `List<Utf8>` column; `None` is a NULL list, `Some(None)` inside one a NULL token.
pub fn token_lists(rows: &[Option<Vec<Option<&str>>>]) -> ArrayRef {
    let mut b = ListBuilder::new(StringBuilder::new());
    for row in rows {
        match row {
            Some(tokens) => {
                for t in tokens {
                    b.values().append_option(*t);
                }
                b.append(true);
            }
            None => b.append(false),
        }
    }
    Arc::new(b.finish())
}

pub fn sentences(rows: &[&str]) -> ArrayRef {
    let rows: Vec<_> = rows
        .iter()
        .map(|s| Some(s.split_whitespace().map(Some).collect()))
        .collect();
    token_lists(&rows)
}

/// A heads column (`List<Int32>`); `None` is a NULL list.
pub fn head_lists(rows: &[Option<Vec<i32>>]) -> ArrayRef {
    let mut b = ListBuilder::new(Int32Builder::new());
    for row in rows {
        match row {
            Some(heads) => {
                b.values().append_slice(heads);
                b.append(true);
            }
            None => b.append(false),
        }
    }
    Arc::new(b.finish())
}

/// A links column; positions are i32 so that tests can pass negative ones.
pub fn link_lists(rows: &[Option<Vec<(i32, i32)>>]) -> ArrayRef {
    let fields = link_fields();
    let values = StructBuilder::new(
        fields.clone(),
        vec![Box::new(Int32Builder::new()), Box::new(Int32Builder::new())],
    );
    let mut b = ListBuilder::new(values).with_field(Arc::new(Field::new_list_field(
        DataType::Struct(fields),
        true,
    )));
    for row in rows {
        match row {
            Some(links) => {
                for &(s, t) in links {
                    let v = b.values();
                    v.field_builder::<Int32Builder>(0).unwrap().append_value(s);
                    v.field_builder::<Int32Builder>(1).unwrap().append_value(t);
                    v.append(true);
                }
                b.append(true);
            }
            None => b.append(false),
        }
    }
    Arc::new(b.finish())
}

/// A batch with `pair_id` 0.. and the given columns (which must not have a pair_id).
pub fn batch(columns: Vec<(&str, ArrayRef)>) -> RecordBatch {
    assert!(
        columns.iter().all(|(name, _)| *name != "pair_id"),
        "batch() makes the pair_id column itself"
    );
    let rows = columns[0].1.len();
    let mut all = vec![(
        "pair_id",
        Arc::new(Int64Array::from_iter_values(0..rows as i64)) as ArrayRef,
    )];
    all.extend(columns);
    let schema = Schema::new(
        all.iter()
            .map(|(n, a)| Field::new(*n, a.data_type().clone(), true))
            .collect::<Vec<_>>(),
    );
    RecordBatch::try_new(Arc::new(schema), all.into_iter().map(|(_, a)| a).collect()).unwrap()
}

pub fn register(ctx: &SessionContext, name: &str, batch: RecordBatch) {
    let table = MemTable::try_new(batch.schema(), vec![vec![batch]]).unwrap();
    ctx.register_table(name, Arc::new(table)).unwrap();
}

pub async fn collect(ctx: &SessionContext, sql: &str) -> Vec<RecordBatch> {
    ctx.sql(sql).await.unwrap().collect().await.unwrap()
}

/// Column `i` of a query's result as floats.
pub async fn floats(ctx: &SessionContext, sql: &str, i: usize) -> Vec<Option<f64>> {
    let mut out = Vec::new();
    for b in collect(ctx, sql).await {
        out.extend(b.column(i).as_primitive::<Float64Type>().iter());
    }
    out
}

/// Column `i` of a query's result as strings (any string type).
pub async fn strings(ctx: &SessionContext, sql: &str, i: usize) -> Vec<Option<String>> {
    let mut out = Vec::new();
    for b in collect(ctx, sql).await {
        let col = datafusion::arrow::compute::cast(b.column(i), &DataType::Utf8).unwrap();
        out.extend(col.as_string::<i32>().iter().map(|s| s.map(str::to_string)));
    }
    out
}

/// Run the pairmetrics binary.
pub fn pairmetrics(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pairmetrics"))
        .args(args)
        .output()
        .unwrap()
}

/// Start `command` with its stdout and stderr going to files: a pipe nobody reads would stall
/// it. [`finish`] waits for it and reads them.
pub fn spawn_to_files(command: &mut Command) -> (Child, tempfile::TempDir) {
    let outputs = tempfile::TempDir::new().unwrap();
    let child = command
        .stdin(Stdio::null())
        .stdout(File::create(outputs.path().join("stdout")).unwrap())
        .stderr(File::create(outputs.path().join("stderr")).unwrap())
        .spawn()
        .unwrap();
    (child, outputs)
}

pub fn finish(mut child: Child, outputs: tempfile::TempDir) -> Output {
    let status = child.wait().unwrap();
    let read = |name: &str| std::fs::read(outputs.path().join(name)).unwrap();
    Output {
        status,
        stdout: read("stdout"),
        stderr: read("stderr"),
    }
}

/// The output of `command` if it ends within `limit`; else it is killed, and None.
pub fn output_within(command: &mut Command, limit: Duration) -> Option<Output> {
    let (mut child, outputs) = spawn_to_files(command);
    let deadline = Instant::now() + limit;
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Some(finish(child, outputs))
}

/// Its stdout, after checking that it succeeded.
pub fn stdout(out: &Output) -> String {
    assert!(
        out.status.success(),
        "failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

pub fn ok(args: &[&str]) -> String {
    let out = pairmetrics(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

pub fn err(args: &[&str]) -> String {
    let out = pairmetrics(args);
    assert!(!out.status.success(), "{args:?} should fail");
    String::from_utf8(out.stderr).unwrap()
}

/// A gzip file's text.
pub fn gunzip(path: &Path) -> String {
    use std::io::Read;
    let mut text = String::new();
    flate2::read::GzDecoder::new(File::open(path).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    text
}

pub fn path_str(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Write one batch of these columns (all nullable) to a Parquet file.
pub fn write_parquet(path: &Path, columns: Vec<(&str, ArrayRef)>) {
    let schema = Schema::new(
        columns
            .iter()
            .map(|(n, a)| Field::new(*n, a.data_type().clone(), true))
            .collect::<Vec<_>>(),
    );
    let batch = RecordBatch::try_new(
        Arc::new(schema),
        columns.into_iter().map(|(_, a)| a).collect(),
    )
    .unwrap();
    let mut w = ArrowWriter::try_new(File::create(path).unwrap(), batch.schema(), None).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
}

/// Every row of a Parquet file, as one batch.
pub fn read_batch(path: &Path) -> RecordBatch {
    let builder = ParquetRecordBatchReaderBuilder::try_new(File::open(path).unwrap()).unwrap();
    let schema = builder.schema().clone();
    let batches: Vec<RecordBatch> = builder.build().unwrap().map(Result::unwrap).collect();
    concat_batches(&schema, &batches).unwrap()
}

/// The names of the entries of `dir`, sorted.
pub fn file_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

pub fn ids(values: &[i64]) -> ArrayRef {
    Arc::new(Int64Array::from(values.to_vec()))
}

/// The rows of `pairmetrics sql --format csv [extra...] --table NAME=PATH... QUERY`, header left out.
pub fn csv_rows(extra: &[&str], tables: &[(&str, &Path)], query: &str) -> Vec<String> {
    let mut args: Vec<String> = ["sql", "--format", "csv"]
        .iter()
        .chain(extra)
        .map(|s| s.to_string())
        .collect();
    for (name, path) in tables {
        args.extend(["--table".to_string(), format!("{name}={}", path.display())]);
    }
    args.push(query.to_string());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    ok(&args).lines().skip(1).map(str::to_string).collect()
}

/// Ports free now, for servers a test starts: below the ephemeral range and never handed out
/// twice by this process. Ports the kernel picks (bind to port 0) are handed out again to the
/// next test that asks, so two servers started at once could be given the same one.
pub fn free_ports(n: usize) -> Vec<u16> {
    static NEXT: AtomicU16 = AtomicU16::new(0);
    let _ = NEXT.compare_exchange(
        0,
        20_000 + (std::process::id() % 500) as u16 * 20,
        Ordering::SeqCst,
        Ordering::SeqCst,
    );
    let mut ports = Vec::new();
    while ports.len() < n {
        let port = NEXT.fetch_add(1, Ordering::SeqCst);
        assert!(port < 32_000, "no free port left");
        if TcpListener::bind(("127.0.0.1", port)).is_ok() {
            ports.push(port);
        }
    }
    ports
}

/// A file of `tests/vectors/<metric>/` written by a `scripts/make_*_vectors.py` from sacrebleu.
pub fn sacrebleu_vectors(metric: &str, file: &str) -> serde_json::Value {
    let text = std::fs::read_to_string(vectors().join(metric).join(file)).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// Python's repr of a float, as the vector scripts write them: the shortest text that reads
/// back as the same f64.
pub fn float(value: &serde_json::Value) -> f64 {
    value.as_str().unwrap().parse().unwrap()
}

/// The lines of a file of `tests/data/wmt23`, as sacrebleu's command line reads them.
pub fn wmt23_lines(name: &str) -> Vec<String> {
    let text = std::fs::read_to_string(root().join("tests/data/wmt23").join(name)).unwrap();
    let mut lines: Vec<String> = text.split('\n').map(str::to_string).collect();
    assert_eq!(
        lines.pop().as_deref(),
        Some(""),
        "{name} ends with a newline"
    );
    lines
}

/// WMT23 systems of one set as a table `set` (system, segment, hyp, ref, refs): one row per
/// segment (numbered from 0 in file order), `ref` the first reference, `refs` all of them.
pub fn register_wmt23(ctx: &SessionContext, set: &str, systems: &[&str], ref_files: &[&str]) {
    use datafusion::arrow::array::{ListBuilder, StringArray, StringBuilder};
    let refs: Vec<Vec<String>> = ref_files.iter().map(|f| wmt23_lines(f)).collect();
    let (mut system, mut segment, mut hyp, mut first, mut all) = (
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
        ListBuilder::new(StringBuilder::new()),
    );
    for name in systems {
        for (i, line) in wmt23_lines(name).into_iter().enumerate() {
            system.push(name.to_string());
            segment.push(i as i64);
            hyp.push(line);
            first.push(refs[0][i].clone());
            all.append_value(refs.iter().map(|r| Some(r[i].clone())));
        }
    }
    let column = |values: Vec<String>| -> ArrayRef { Arc::new(StringArray::from(values)) };
    let all: ArrayRef = Arc::new(all.finish());
    register(
        ctx,
        set,
        batch(vec![
            ("system", column(system)),
            ("segment", ids(&segment)),
            ("hyp", column(hyp)),
            ("ref", column(first)),
            ("refs", all),
        ]),
    );
}

/// A table of `rows` rows as a new directory `dir` of two files (part-0 and part-1, half the
/// rows each), each of more than five row groups of `per_group` rows: `batch_of` gives the
/// rows of a range. For tests that a reader keeps file order whatever the layout.
pub fn write_two_parts(
    dir: &Path,
    rows: usize,
    per_group: usize,
    batch_of: impl Fn(std::ops::Range<usize>) -> RecordBatch,
) {
    use datafusion::parquet::file::properties::WriterProperties;
    std::fs::create_dir(dir).unwrap();
    for (name, range) in [
        ("part-0.parquet", 0..rows / 2),
        ("part-1.parquet", rows / 2..rows),
    ] {
        let batch = batch_of(range);
        let properties = WriterProperties::builder()
            .set_max_row_group_row_count(Some(per_group))
            .build();
        let file = File::create(dir.join(name)).unwrap();
        let mut writer = ArrowWriter::try_new(file, batch.schema(), Some(properties)).unwrap();
        writer.write(&batch).unwrap();
        assert!(writer.close().unwrap().num_row_groups() > 5);
    }
}

/// `pairmetrics import text --src SRC --tgt TGT --out OUT`: a pairs table of two text files;
/// what it printed.
pub fn import_text(src: &Path, tgt: &Path, out: &Path) -> String {
    ok(&[
        "import",
        "text",
        "--src",
        path_str(src),
        "--tgt",
        path_str(tgt),
        "--out",
        path_str(out),
    ])
}

/// The first `lines` pairs (all with None) of tests/data/fast_align's Europarl fr-en lines
/// (`French ||| English`), imported as a pairs table `dir/pairs.parquet` from two text files.
pub fn europarl_pairs(dir: &Path, lines: Option<usize>) -> PathBuf {
    let text = gunzip(&root().join("tests/data/fast_align/europarl.fr-en.gz"));
    let (mut fr, mut en) = (String::new(), String::new());
    for line in text.lines().take(lines.unwrap_or(usize::MAX)) {
        let (f, e) = line.split_once(" ||| ").unwrap();
        fr.extend([f, "\n"]);
        en.extend([e, "\n"]);
    }
    let (src, tgt, pairs) = (
        dir.join("europarl.fr"),
        dir.join("europarl.en"),
        dir.join("pairs.parquet"),
    );
    std::fs::write(&src, fr).unwrap();
    std::fs::write(&tgt, en).unwrap();
    import_text(&src, &tgt, &pairs);
    pairs
}
