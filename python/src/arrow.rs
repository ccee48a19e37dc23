//! Arrow data in and out of Python through the Arrow PyCapsule interface: arrays are moved
//! across as they are (the C data interface), never copied.

use std::ffi::CStr;

use datafusion::arrow::array::{ArrayRef, make_array, new_empty_array};
use datafusion::arrow::datatypes::Field;
use datafusion::arrow::ffi::{
    FFI_ArrowArray, FFI_ArrowSchema, from_ffi, from_ffi_and_data_type, to_ffi,
};
use datafusion::arrow::ffi_stream::FFI_ArrowArrayStream;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyTuple};

/// Import `value`, an object with `__arrow_c_array__` (one array) or `__arrow_c_stream__` (the
/// chunks of a chunked array, a Polars series, ...), as its chunks; `what` names it in errors
/// ("argument `src`").
pub fn import(value: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<ArrayRef>> {
    if value.hasattr("__arrow_c_array__")? {
        let pair = value.call_method0("__arrow_c_array__")?;
        let pair = pair.cast::<PyTuple>().map_err(|_| {
            PyTypeError::new_err(format!("{what}: __arrow_c_array__ did not return a tuple"))
        })?;
        let schema = capsule(&pair.get_item(0)?, c"arrow_schema", what)?;
        let array = capsule(&pair.get_item(1)?, c"arrow_array", what)?;
        // SAFETY: the capsules hold an ArrowSchema and an ArrowArray (their names say so);
        // the array is moved out (its release callback now ours), the schema only borrowed.
        let data = unsafe {
            let array = FFI_ArrowArray::from_raw(
                array.pointer_checked(Some(c"arrow_array"))?.cast().as_ptr(),
            );
            let schema: &FFI_ArrowSchema = schema
                .pointer_checked(Some(c"arrow_schema"))?
                .cast()
                .as_ref();
            from_ffi(array, schema)
        }
        .map_err(|e| PyValueError::new_err(format!("{what}: {e}")))?;
        return Ok(vec![make_array(data)]);
    }
    if value.hasattr("__arrow_c_stream__")? {
        let stream = value.call_method0("__arrow_c_stream__")?;
        let stream = capsule(&stream, c"arrow_array_stream", what)?;
        // SAFETY: the capsule holds an ArrowArrayStream; it is moved out and released by us.
        let mut stream = unsafe {
            FFI_ArrowArrayStream::from_raw(
                stream
                    .pointer_checked(Some(c"arrow_array_stream"))?
                    .cast()
                    .as_ptr(),
            )
        };
        let chunks =
            read_stream(&mut stream).map_err(|e| PyValueError::new_err(format!("{what}: {e}")))?;
        return Ok(chunks);
    }
    Err(PyTypeError::new_err(format!(
        "{what}: expected an Arrow array (pyarrow, Polars, DuckDB, nanoarrow, ...), got {}",
        value.get_type().name()?
    )))
}

fn capsule<'py>(
    value: &Bound<'py, PyAny>,
    name: &CStr,
    what: &str,
) -> PyResult<Bound<'py, PyCapsule>> {
    let capsule = value
        .cast::<PyCapsule>()
        .map_err(|_| PyTypeError::new_err(format!("{what}: expected a {name:?} PyCapsule")))?;
    Ok(capsule.clone())
}

/// Every array of a C stream of arrays. arrow-rs reads streams of record batches only; this
/// one may carry any type (a chunked array's), so it is read by hand.
fn read_stream(stream: &mut FFI_ArrowArrayStream) -> Result<Vec<ArrayRef>, String> {
    let get_schema = stream.get_schema.ok_or("the stream was already released")?;
    let get_next = stream.get_next.ok_or("the stream was already released")?;
    let mut schema = FFI_ArrowSchema::empty();
    // SAFETY: the callbacks are the stream's own, called as the C stream interface says.
    if unsafe { get_schema(stream, &mut schema) } != 0 {
        return Err(last_error(stream));
    }
    let field = Field::try_from(&schema).map_err(|e| e.to_string())?;
    let mut chunks = Vec::new();
    loop {
        let mut array = FFI_ArrowArray::empty();
        if unsafe { get_next(stream, &mut array) } != 0 {
            return Err(last_error(stream));
        }
        if array.is_released() {
            if chunks.is_empty() {
                chunks.push(new_empty_array(field.data_type()));
            }
            return Ok(chunks);
        }
        let data = unsafe { from_ffi_and_data_type(array, field.data_type().clone()) }
            .map_err(|e| e.to_string())?;
        chunks.push(make_array(data));
    }
}

fn last_error(stream: &mut FFI_ArrowArrayStream) -> String {
    let message = stream.get_last_error.and_then(|get| {
        // SAFETY: a NUL-terminated string owned by the stream, valid until its next call.
        let ptr = unsafe { get(stream) };
        (!ptr.is_null()).then(|| {
            unsafe { CStr::from_ptr(ptr) }
                .to_string_lossy()
                .into_owned()
        })
    });
    message.unwrap_or_else(|| "the Arrow stream failed".to_string())
}

/// An array on its way to Python: `pyarrow.array(it)` takes it through `__arrow_c_array__`.
#[pyclass(frozen, module = "pairmetrics._native")]
pub struct ExportedArray(pub ArrayRef);

#[pymethods]
impl ExportedArray {
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_array__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let _ = requested_schema; // the array is given in its own type
        let (array, schema) =
            to_ffi(&self.0.to_data()).map_err(|e| PyValueError::new_err(e.to_string()))?;
        let schema = PyCapsule::new_with_value(py, schema, c"arrow_schema")?;
        let array = PyCapsule::new_with_value(py, array, c"arrow_array")?;
        PyTuple::new(py, [schema.into_any(), array.into_any()])
    }

    fn __len__(&self) -> usize {
        self.0.len()
    }
}
