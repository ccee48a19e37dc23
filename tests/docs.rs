//! Every UDF describes itself through `SHOW FUNCTIONS` and `information_schema.routines`.

use crate::common::*;

const NAMES: [&str; 6] = ["led", "pod", "lepod_problem", "tokenize", "lowercase_tokens", "pharaoh"];

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
}

#[tokio::test]
async fn show_functions_explains_led() {
    let ctx = context();
    let batches = collect(&ctx, "SHOW FUNCTIONS LIKE 'led'").await;
    let text = datafusion::arrow::util::pretty::pretty_format_batches(&batches).unwrap().to_string();
    assert!(text.contains("lexical difference"), "{text}");
    assert!(text.contains("led(src, tgt [, links])"), "{text}");
}
