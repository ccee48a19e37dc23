//! Every UDF describes itself through `SHOW FUNCTIONS` and `information_schema.routines`.

use crate::common::*;

const NAMES: [&str; 22] = [
    "led",
    "pod",
    "lepod_problem",
    "lepod",
    "derp",
    "derp_detail",
    "derp_problem",
    "derp_pooled",
    "kendall_tau_a",
    "tokenize",
    "lowercase_tokens",
    "pharaoh",
    "true_score",
    "true_score_detail",
    "dep_fit",
    "dep_fit_pos",
    "dep_fit_iucl",
    "dep_fit_pos_iucl",
    "dep_fit_problem",
    "dep_triples",
    "lm_logprob",
    "word_accuracy",
];

#[test]
fn names_cover_every_registered_function() {
    let scalar = pairmetrics::udf::all_scalar_udfs().into_iter().map(|f| f.name().to_string());
    let aggregate = pairmetrics::udf::all_aggregate_udfs().into_iter().map(|f| f.name().to_string());
    let mut registered: Vec<String> = scalar.chain(aggregate).collect();
    let mut names: Vec<String> = NAMES.map(String::from).to_vec();
    registered.sort();
    names.sort();
    assert_eq!(registered, names);
}

#[tokio::test]
async fn routines_describe_every_function() {
    let ctx = context();
    let list = NAMES.map(|n| format!("'{n}'")).join(", ");
    let sql = format!(
        "SELECT DISTINCT routine_name, description, syntax_example FROM information_schema.routines \
         WHERE routine_name IN ({list}) ORDER BY routine_name"
    );
    let names = strings(&ctx, &sql, 0).await;
    let mut want: Vec<Option<String>> = NAMES.iter().map(|n| Some(n.to_string())).collect();
    want.sort();
    assert_eq!(names, want);
    for description in strings(&ctx, &sql, 1).await {
        assert!(description.is_some_and(|d| d.len() > 40));
    }
    let syntax = strings(&ctx, &sql, 2).await;
    assert!(syntax.contains(&Some("pod(src, tgt, links [, punct])".to_string())));
    let derp = "derp_pooled(src_head, src_deprel, tgt_head, tgt_deprel, links)";
    assert!(syntax.contains(&Some(derp.to_string())), "{syntax:?}");
}

#[tokio::test]
async fn show_functions_explains_led() {
    let ctx = context();
    let batches = collect(&ctx, "SHOW FUNCTIONS LIKE 'led'").await;
    let text = datafusion::arrow::util::pretty::pretty_format_batches(&batches).unwrap().to_string();
    assert!(text.contains("lexical difference"), "{text}");
    assert!(text.contains("led(src, tgt [, links])"), "{text}");
}
