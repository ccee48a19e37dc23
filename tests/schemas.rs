//! `schemas/*.md` and the code's Arrow schemas say the same thing.

use pairmetrics::schema::{Table, render_type};

use crate::common::root;

/// The (column, type) rows of a schema file's table.
fn documented(table: Table) -> Vec<(String, String)> {
    let path = root().join(format!("schemas/{}.md", table.name()));
    let text = std::fs::read_to_string(&path).unwrap();
    text.lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| column"))
        .map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            (cells[1].to_string(), cells[2].to_string())
        })
        .collect()
}

#[test]
fn schema_files_match_the_code() {
    for table in [
        Table::Pairs,
        Table::Alignments,
        Table::Arcs,
        Table::PhraseTable,
        Table::Nbest,
        Table::Triples,
        Table::Fragments,
        Table::Dictionary,
    ] {
        let code: Vec<(String, String)> = table
            .schema()
            .fields()
            .iter()
            .map(|f| (f.name().clone(), render_type(f.data_type())))
            .collect();
        assert_eq!(documented(table), code, "schemas/{}.md", table.name());
    }
}

#[test]
fn pair_id_is_the_only_non_nullable_column() {
    let schema = Table::Pairs.schema();
    assert!(!schema.field_with_name("pair_id").unwrap().is_nullable());
    assert!(schema.field_with_name("src").unwrap().is_nullable());
}
