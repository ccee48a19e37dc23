//! The IUCL loop end to end on a hand-made task: candidates from a real Moses phrase table
//! (whole and synthetic), a dictionary and copies; features with the test LM, triples counted
//! from the sample and a projected parse; MERT; the run scored by `semeval-eval`. And run files
//! written back from imported tables.

use std::path::{Path, PathBuf};

use crate::common::{csv_rows, err, ok, path_str, root, sample};

/// Four fragments, one per candidate origin: "voudrais savoir" is in the table (two
/// translations: the wrong one more probable in the direct direction), "une objection" only in
/// pieces (synthetic), "constamment" only in the dictionary, "zzz" nowhere (copied; its reference
/// differs, so no weights answer it right).
const TASK: &str = r#"<sentencepairs L1="fr" L2="en">
<s id="1"><input>I <f id="1">voudrais savoir</f> whether this is possible .</input><ref>I <f id="1">want to know</f> whether this is possible .</ref></s>
<s id="2"><input>one can raise <f id="1">une objection</f> to that .</input><ref>one can raise <f id="1">an objection</f> to that .</ref></s>
<s id="3"><input>it is <f id="1">constamment</f> followed .</input><ref>it is <f id="1">constantly</f> followed .</ref></s>
<s id="4"><input>the <f id="1">zzz</f> arrived .</input><ref>the <f id="1">xyz</f> arrived .</ref></s>
</sentencepairs>
"#;

/// Moses order: φ(f|e) lex(f|e) φ(e|f) lex(e|f), f = French: direct is the third score.
const PHRASES: &str = "voudrais savoir ||| would like to know ||| 0.5 0.5 0.6 0.5
voudrais savoir ||| want to know ||| 0.8 0.8 0.3 0.5
une ||| a ||| 0.5 0.5 0.3 0.5
une ||| an ||| 0.5 0.5 0.6 0.5
objection ||| objection ||| 0.9 0.9 0.9 0.9
";

/// A parse of sentence 1's input, the French fragment in place.
const PARSE: &str = "1\tI\t_\tPRON\t_\t_\t2\tnsubj\t_\t_
2\tvoudrais\t_\tVERB\t_\t_\t0\troot\t_\t_
3\tsavoir\t_\tVERB\t_\t_\t2\txcomp\t_\t_
4\twhether\t_\tSCONJ\t_\t_\t7\tmark\t_\t_
5\tthis\t_\tPRON\t_\t_\t7\tnsubj\t_\t_
6\tis\t_\tAUX\t_\t_\t7\tcop\t_\t_
7\tpossible\t_\tADJ\t_\t_\t3\tccomp\t_\t_
8\t.\t_\tPUNCT\t_\t_\t2\tpunct\t_\t_

";

struct Task {
    dir: tempfile::TempDir,
    task: PathBuf,
    resources: Vec<String>,
}

impl Task {
    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// `command` with the resources, then `extra`.
    fn run(&self, command: &str, extra: &[&str]) -> String {
        let mut args = vec![command];
        args.extend(self.resources.iter().map(String::as_str));
        args.extend(extra);
        ok(&args)
    }
}

fn read_json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn task() -> Task {
    let dir = tempfile::tempdir().unwrap();
    let file = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    let task = file("task.xml", TASK);
    let phrases = dir.path().join("phrases.parquet");
    ok(&[
        "import",
        "moses-phrase-table",
        "--table",
        path_str(&file("phrase-table", PHRASES)),
        "--out",
        path_str(&phrases),
    ]);
    let dictionary = dir.path().join("dictionary.parquet");
    ok(&[
        "import",
        "dictionary",
        path_str(&file(
            "dictionary.tsv",
            "constamment\tconstantly\nconstamment\talways\nobjection\tcomplaint\n",
        )),
        "--out",
        path_str(&dictionary),
    ]);
    let triples = dir.path().join("triples.parquet");
    let (pairs, arcs) = (
        sample().join("pairs.parquet"),
        sample().join("arcs.parquet"),
    );
    ok(&[
        "triples",
        "--pairs",
        path_str(&pairs),
        "--arcs",
        path_str(&arcs),
        "--side",
        "tgt",
        "--out",
        path_str(&triples),
    ]);
    let lm = root().join("tests/data/lm/europarl.en.3gram.arpa.gz");
    let parses = file("inputs.conllu", PARSE);
    let resources = [
        ("--phrase-table", &phrases),
        ("--dictionary", &dictionary),
        ("--lm", &lm),
        ("--triples", &triples),
        ("--parses", &parses),
    ]
    .iter()
    .flat_map(|(flag, path)| [flag.to_string(), path.display().to_string()])
    .collect();
    Task {
        dir,
        task,
        resources,
    }
}

fn weights(path: &Path, json: &str) -> PathBuf {
    std::fs::write(path, json).unwrap();
    path.to_path_buf()
}

#[test]
fn l2_assist_candidates_features_ranking_tuning_and_the_scored_run() {
    let t = task();
    let (run, table) = (t.path("run.xml"), t.path("candidates.parquet"));
    let direct = weights(&t.path("direct.json"), r#"{"weights": {"direct": 1}}"#);
    let printed = t.run(
        "l2-assist",
        &[
            "--input",
            path_str(&t.task),
            "--weights",
            path_str(&direct),
            "--table",
            path_str(&table),
            "--out",
            path_str(&run),
        ],
    );
    assert!(printed.contains("4 fragments"), "{printed}");
    let candidates = |query: &str| csv_rows(&[], &[("c", &table)], query);

    // Each origin where the back-off order puts it; ranked by direct probability alone.
    let listed = candidates(
        "SELECT pair_id, rank, origin, array_to_string(candidate, ' '), round(direct, 4), round(inverse, 4), parse \
         FROM c ORDER BY pair_id, rank",
    );
    assert_eq!(
        listed,
        [
            "0,1,table,would like to know,-0.2218,-0.301,projected",
            "0,2,table,want to know,-0.5229,-0.0969,projected",
            "1,1,synthetic,an objection,-0.2676,-0.3468,",
            "1,2,synthetic,a objection,-0.5686,-0.3468,",
            "2,1,dictionary,constantly,-0.301,-0.301,",
            "2,2,dictionary,always,-0.301,-0.301,",
            "3,1,copy,zzz,,,",
        ]
    );
    // The LM feature is KenLM's score of the whole spliced sentence: lm_logprob's, in SQL.
    let lm = root().join("tests/data/lm/europarl.en.3gram.arpa.gz");
    let differ = csv_rows(
        &["--lm", path_str(&lm)],
        &[("c", &table)],
        "SELECT count(*) FROM c WHERE abs(lm - lm_logprob(sentence)) > 1e-9 OR lm IS NULL",
    );
    assert_eq!(differ, ["0"]);

    // The projection: "want" takes "voudrais"'s root arc, "to" and "know" depend on it, and the
    // context's arcs into the fragment now point at "want"; pmi_lex is dep_fit of that parse.
    let projected = candidates(
        "SELECT array_to_string(head, ' '), array_to_string(deprel, ' ') FROM c WHERE candidate = ['want', 'to', 'know']",
    );
    assert_eq!(
        projected,
        ["2 0 2 2 8 8 8 2 2,nsubj root dep dep mark nsubj cop ccomp punct"]
    );
    let triples = t.path("triples.parquet");
    let fitness = csv_rows(
        &["--triples", path_str(&triples)],
        &[("c", &table)],
        "SELECT count(*), count(pmi_lex), sum(CASE WHEN pmi_lex = dep_fit(sentence, head, deprel, candidate_start, candidate_end - candidate_start) \
         AND pmi_pos = dep_fit_pos(upos, head, deprel, candidate_start, candidate_end - candidate_start) THEN 1 ELSE 0 END) FROM c WHERE parse IS NOT NULL",
    );
    assert_eq!(fitness, ["2,2,2"]);

    // Direct probability alone answers 2 and 3 right, 1 wrong; 4 is wrong whatever the weights.
    let scored = ok(&[
        "semeval-eval",
        "--ref",
        path_str(&t.task),
        "--out",
        path_str(&run),
    ]);
    assert_eq!(scored.lines().last().unwrap(), "0.5 0.625 1.0", "{scored}");

    // MERT finds weights that also get sentence 1 right (inverse outweighing direct there).
    let tuned = t.path("tuned.json");
    let printed = t.run(
        "tune",
        &["--dev", path_str(&t.task), "--out", path_str(&tuned)],
    );
    assert!(printed.contains("mean metric over 4 lists"), "{printed}");
    let json = read_json(&tuned);
    assert_eq!(json["tuned_metric"], 0.75, "{json}");
    assert!(json["initial_metric"].as_f64().unwrap() <= 0.75);
    let l1: f64 = json["weights"]
        .as_object()
        .unwrap()
        .values()
        .map(|w| w.as_f64().unwrap().abs())
        .sum();
    assert!((l1 - 1.0).abs() < 1e-12, "{json}");
    assert!(
        json["signature"].as_str().unwrap().contains("|mert|dev:"),
        "{json}"
    );
    // Seeded: the same weights again; and the same from the candidates table.
    let again = t.path("again.json");
    t.run(
        "tune",
        &["--dev", path_str(&t.task), "--out", path_str(&again)],
    );
    assert_eq!(read_json(&again)["weights"], json["weights"]);
    let from_table = t.path("from-table.json");
    ok(&[
        "tune",
        "--candidates",
        path_str(&table),
        "--out",
        path_str(&from_table),
    ]);
    let from_table = read_json(&from_table);
    assert_eq!(from_table["tuned_metric"], 0.75, "{from_table}");

    // The tuned run, out of five: the official scorer's figures follow.
    let assist_tuned = |extra: &[&str]| {
        let args = [
            &[
                "--input",
                path_str(&t.task),
                "--weights",
                path_str(&tuned),
                "--out",
                path_str(&run),
            ],
            extra,
        ];
        t.run("l2-assist", &args.concat())
    };
    assist_tuned(&["--out-of-five"]);
    let scored = ok(&[
        "semeval-eval",
        "--ref",
        path_str(&t.task),
        "--out",
        path_str(&run),
    ]);
    assert_eq!(scored.lines().last().unwrap(), "0.75 0.75 1.0", "{scored}");
    let text = std::fs::read_to_string(&run).unwrap();
    assert!(
        text.contains(r#"<f id="1">want to know<alt>would like to know</alt></f>"#),
        "{text}"
    );

    // loglinear in SQL ranks as l2-assist did.
    let w = &json["weights"];
    let query = format!(
        "SELECT count(*) FROM c WHERE abs(score - loglinear([{}, {}, {}, {}, {}], coalesce(lm, 0), coalesce(direct, 0), coalesce(inverse, 0), \
         coalesce(pmi_lex, 0), coalesce(pmi_pos, 0))) > 1e-12",
        w["lm"], w["direct"], w["inverse"], w["pmi_lex"], w["pmi_pos"]
    );
    assist_tuned(&["--table", path_str(&table)]);
    assert_eq!(candidates(&query), ["0"]);
}

#[test]
fn l2_assist_and_tune_say_what_is_wrong() {
    let t = task();
    let run = t.path("run.xml");
    let input = ["--input", path_str(&t.task), "--out", path_str(&run)];
    let unknown = weights(
        &t.path("unknown.json"),
        r#"{"weights": {"lm": 1, "bleu": 2}}"#,
    );
    let error = err(&[&["l2-assist", "--weights", path_str(&unknown)][..], &input].concat());
    assert!(error.contains("unknown.json: unknown feature \"bleu\" (expected one of lm, direct, inverse, pmi_lex, pmi_pos)"), "{error}");
    let shapeless = weights(&t.path("shapeless.json"), r#"[1, 2]"#);
    let error = err(&[
        &["l2-assist", "--weights", path_str(&shapeless)][..],
        &input,
    ]
    .concat());
    assert!(
        error.contains("expected an object with a \"weights\" object"),
        "{error}"
    );
    let w = t.path("w.json");
    let error = err(&[
        "tune",
        "--input",
        path_str(&t.task),
        "--dev",
        path_str(&t.task),
        "--out",
        path_str(&w),
    ]);
    assert!(
        error.contains(
            "tune reads a dev set (--dev DEV.xml) or a candidates table (--candidates), not --input"
        ),
        "{error}"
    );
    let error = err(&[
        "tune",
        "--dev",
        path_str(&t.task),
        "--features",
        "lm,fluency",
        "--out",
        path_str(&t.path("w.json")),
    ]);
    assert!(error.contains("unknown feature \"fluency\""), "{error}");
    let no_dictionary = t.path("no-dictionary.parquet");
    ok(&[
        "sql",
        "--out",
        path_str(&no_dictionary),
        "SELECT 'a' AS source, 'b' AS target",
    ]);
    let error = err(&[
        &["l2-assist", "--dictionary", path_str(&no_dictionary)][..],
        &input,
    ]
    .concat());
    assert!(
        error.contains("no-dictionary.parquet: no column src"),
        "{error}"
    );
    let numbers = t.path("numbers.parquet");
    ok(&[
        "sql",
        "--out",
        path_str(&numbers),
        "SELECT 1 AS src, 'b' AS tgt",
    ]);
    let error = err(&[
        &["l2-assist", "--dictionary", path_str(&numbers)][..],
        &input,
    ]
    .concat());
    assert!(
        error.contains(
            "numbers.parquet: column src is Int64; expected text (Utf8) or tokens (List<Utf8>)"
        ),
        "{error}"
    );
    let empty = t.path("empty.parquet");
    ok(&[
        "sql",
        "--out",
        path_str(&empty),
        "SELECT 'a' AS src, ' ' AS tgt",
    ]);
    let error = err(&[&["l2-assist", "--dictionary", path_str(&empty)][..], &input].concat());
    assert!(
        error.contains("empty.parquet: row 1 (1-based): src and tgt must be non-empty"),
        "{error}"
    );
    // A task without references has nothing to tune on.
    let test = t.path("test.xml");
    std::fs::write(
        &test,
        TASK.lines()
            .map(|l| {
                l.split("<ref>").next().unwrap().to_string()
                    + if l.contains("<ref>") { "</s>" } else { "" }
            })
            .collect::<Vec<_>>()
            .join("\n"),
    )
    .unwrap();
    let error = err(&[
        "tune",
        "--dev",
        path_str(&test),
        "--out",
        path_str(&t.path("w.json")),
    ]);
    assert!(error.contains("nothing to tune on"), "{error}");
    assert!(
        !run.exists() && !t.path("w.json").exists(),
        "no output on an error"
    );
}

#[test]
fn run_files_written_from_imported_tables_score_as_the_originals() {
    let dir = tempfile::tempdir().unwrap();
    let fixtures = root().join("tests/data/semeval2014t5");
    let gold = fixtures.join("fr-en.gold.tokenised.xml.gz");
    let (g, out) = (
        dir.path().join("gold.parquet"),
        dir.path().join("gold-as-run.xml"),
    );
    ok(&[
        "import",
        "semeval2014t5",
        path_str(&gold),
        "--out",
        path_str(&g),
    ]);
    let printed = ok(&[
        "export",
        "semeval2014t5",
        "--table",
        path_str(&g),
        "--answer",
        "reference_fragment",
        "--alternatives",
        "reference_alternatives",
        "--out",
        path_str(&out),
    ]);
    assert!(printed.contains("495 fragments"), "{printed}");
    for flags in [&["-I"][..], &["-I", "-a"]] {
        let scored = ok(&[
            &[
                "semeval-eval",
                "--ref",
                path_str(&gold),
                "--out",
                path_str(&out),
            ][..],
            flags,
        ]
        .concat());
        assert_eq!(scored.lines().last().unwrap(), "1.0 1.0 1.0", "{flags:?}");
    }

    // A published out-of-five run, imported and exported: the scorer's published figures again.
    let run = fixtures.join("IUCL.fr-en.run1.oof.xml.gz");
    let (r, out) = (dir.path().join("run.parquet"), dir.path().join("run.xml"));
    ok(&[
        "import",
        "semeval2014t5",
        path_str(&run),
        "--out",
        path_str(&r),
    ]);
    ok(&[
        "export",
        "semeval2014t5",
        "--table",
        path_str(&r),
        "--out",
        path_str(&out),
    ]);
    let expected = std::fs::read_to_string(fixtures.join("expected.tsv")).unwrap();
    let mut checked = 0;
    for line in expected
        .lines()
        .filter(|l| l.starts_with("IUCL.fr-en.run1.oof.xml.gz\t"))
    {
        let [_, _, flags, want] = line.splitn(4, '\t').collect::<Vec<_>>().try_into().unwrap();
        let mut args = vec![
            "semeval-eval",
            "--ref",
            path_str(&gold),
            "--out",
            path_str(&out),
        ];
        args.extend(flags.split_whitespace());
        assert_eq!(ok(&args).lines().last().unwrap(), want, "{flags}");
        checked += 1;
    }
    assert!(checked > 0);
    // --best-only drops the alternatives.
    ok(&[
        "export",
        "semeval2014t5",
        "--table",
        path_str(&r),
        "--best-only",
        "--out",
        path_str(&out),
    ]);
    assert!(!std::fs::read_to_string(&out).unwrap().contains("<alt>"));
    let error = err(&[
        "export",
        "semeval2014t5",
        "--table",
        path_str(&r),
        "--answer",
        "no_such",
        "--out",
        path_str(&out),
    ]);
    assert!(error.contains("no_such"), "{error}");
}

#[test]
fn loglinear_in_sql() {
    let rows = csv_rows(
        &[],
        &[],
        "SELECT loglinear([1.0, 2.0], 3, 4), loglinear([0.5, -1], 2, CAST(NULL AS DOUBLE)), loglinear([0.5], 4)",
    );
    assert_eq!(rows, ["11.0,,2.0"]);
    let error = err(&["sql", "SELECT loglinear([1.0, 2.0], 3)"]);
    assert!(
        error.contains("loglinear: 2 weights for 1 features (row 1, 1-based)"),
        "{error}"
    );
    let error = err(&["sql", "SELECT loglinear([1.0], 'high')"]);
    assert!(
        error.contains("loglinear: argument `feature1` must be"),
        "{error}"
    );
}
