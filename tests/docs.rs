//! Every UDF describes itself through `SHOW FUNCTIONS` and `information_schema.routines`.

use crate::common::*;

/// Every registered scalar and aggregate function: the docs must follow the registry.
fn names() -> Vec<String> {
    let scalar = pairmetrics::udf::all_scalar_udfs().into_iter().map(|f| f.name().to_string());
    let aggregate = pairmetrics::udf::all_aggregate_udfs().into_iter().map(|f| f.name().to_string());
    let mut names: Vec<String> = scalar.chain(aggregate).collect();
    names.sort();
    names
}

#[test]
fn every_registered_function_is_named_once_and_in_the_readme() {
    let names = names();
    let mut unique = names.clone();
    unique.dedup();
    assert_eq!(unique, names, "a function is registered twice");
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    for name in &names {
        assert!(readme.contains(&format!("`{name}(")), "README.md has no row for `{name}(...)`");
    }
}

#[tokio::test]
async fn routines_describe_every_function() {
    let ctx = context();
    let list = names().iter().map(|n| format!("'{n}'")).collect::<Vec<_>>().join(", ");
    let sql = format!(
        "SELECT DISTINCT routine_name, description, syntax_example FROM information_schema.routines \
         WHERE routine_name IN ({list}) ORDER BY routine_name"
    );
    let described = strings(&ctx, &sql, 0).await;
    let want: Vec<Option<String>> = names().into_iter().map(Some).collect();
    assert_eq!(described, want);
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
