//! The fragments table, from a SemEval-2014 Task 5 file: one row per fragment of a sentence's
//! input, with the reference's and the output's fragment of the same id when the file has them.

use std::sync::Arc;

use anyhow::Result;
use datafusion::arrow::array::{ArrayRef, Int64Array, ListBuilder, RecordBatch, StringBuilder};
use datafusion::arrow::datatypes::SchemaRef;

use super::Chunk;
use crate::arrow::{append_tokens, token_list_builder};
use crate::formats::semeval2014t5::{Fragment, FragmentRow as Row};

pub(super) fn build(schema: &SchemaRef, chunk: Chunk<Row>) -> Result<RecordBatch> {
    let n = chunk.rows.len();
    let texts = || StringBuilder::with_capacity(n, n * 8);
    let (mut sentence, mut fragment_id, mut l1, mut l2) = (texts(), texts(), texts(), texts());
    let [
        mut input,
        mut fragment,
        mut reference,
        mut reference_fragment,
        mut output,
    ] = std::array::from_fn(|_| token_list_builder(n));
    let alternatives = || ListBuilder::new(token_list_builder(n));
    let (mut reference_alternatives, mut output_alternatives) = (alternatives(), alternatives());
    let tokens = |b: &mut ListBuilder<StringBuilder>, t: Option<&Vec<String>>| match t {
        Some(t) => append_tokens(b, t.iter().map(String::as_str), false),
        None => b.append(false),
    };
    let alts = |b: &mut ListBuilder<ListBuilder<StringBuilder>>, f: Option<&Fragment>| match f {
        Some(f) => {
            for alt in &f.alternatives {
                append_tokens(b.values(), alt.iter().map(String::as_str), false);
            }
            b.append(true);
        }
        None => b.append(false),
    };
    let (mut starts, mut ends) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for row in &chunk.rows {
        sentence.append_value(&row.place.sentence_id);
        fragment_id.append_value(&row.place.fragment_id);
        l1.append_option(row.place.l1.as_deref());
        l2.append_option(row.place.l2.as_deref());
        tokens(&mut input, Some(&row.place.input));
        starts.push(row.place.span.0 as i64);
        ends.push(row.place.span.1 as i64);
        tokens(&mut fragment, row.fragment.as_ref());
        tokens(&mut reference, row.reference.as_ref());
        tokens(
            &mut reference_fragment,
            row.reference_fragment
                .as_ref()
                .and_then(|f| f.value.as_ref()),
        );
        alts(&mut reference_alternatives, row.reference_fragment.as_ref());
        tokens(
            &mut output,
            row.output.as_ref().and_then(|f| f.value.as_ref()),
        );
        alts(&mut output_alternatives, row.output.as_ref());
    }
    let ids: Vec<i64> = (chunk.first..chunk.first + n as u64)
        .map(|i| i as i64)
        .collect();
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::from(ids)),
        Arc::new(sentence.finish()),
        Arc::new(fragment_id.finish()),
        Arc::new(l1.finish()),
        Arc::new(l2.finish()),
        Arc::new(input.finish()),
        Arc::new(Int64Array::from(starts)),
        Arc::new(Int64Array::from(ends)),
        Arc::new(fragment.finish()),
        Arc::new(reference.finish()),
        Arc::new(reference_fragment.finish()),
        Arc::new(reference_alternatives.finish()),
        Arc::new(output.finish()),
        Arc::new(output_alternatives.finish()),
    ];
    Ok(RecordBatch::try_new(schema.clone(), columns)?)
}
