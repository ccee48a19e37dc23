//! pairmetrics' functions as datafusion-python takes foreign functions: objects whose
//! `__datafusion_*__` method returns a datafusion-ffi capsule (`datafusion.udf(obj)`,
//! `udaf(obj)`, `udtf(obj, name)`).

use std::ptr::NonNull;
use std::sync::Arc;

use datafusion::catalog::TableFunctionImpl;
use datafusion::logical_expr::{AggregateUDF, ScalarUDF};
use datafusion_ffi::proto::logical_extension_codec::FFI_LogicalExtensionCodec;
use datafusion_ffi::udaf::FFI_AggregateUDF;
use datafusion_ffi::udf::FFI_ScalarUDF;
use datafusion_ffi::udtf::FFI_TableFunction;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;

#[pyclass(frozen, module = "pairmetrics._native")]
pub struct ScalarFunction(pub Arc<ScalarUDF>);

#[pymethods]
impl ScalarFunction {
    fn __datafusion_scalar_udf__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        PyCapsule::new_with_value(
            py,
            FFI_ScalarUDF::from(self.0.clone()),
            c"datafusion_scalar_udf",
        )
    }

    #[getter]
    fn name(&self) -> &str {
        self.0.name()
    }
}

#[pyclass(frozen, module = "pairmetrics._native")]
pub struct AggregateFunction(pub Arc<AggregateUDF>);

#[pymethods]
impl AggregateFunction {
    fn __datafusion_aggregate_udf__<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        PyCapsule::new_with_value(
            py,
            FFI_AggregateUDF::from(self.0.clone()),
            c"datafusion_aggregate_udf",
        )
    }

    #[getter]
    fn name(&self) -> &str {
        self.0.name()
    }
}

#[pyclass(frozen, module = "pairmetrics._native")]
pub struct TableFunction {
    pub name: String,
    pub function: Arc<dyn TableFunctionImpl>,
}

#[pymethods]
impl TableFunction {
    /// datafusion-python passes the session the function is registered in: its logical codec
    /// travels with the function (datafusion-ffi 52 and later).
    fn __datafusion_table_function__<'py>(
        &self,
        py: Python<'py>,
        session: Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let attr = "__datafusion_logical_extension_codec__";
        let codec = if session.hasattr(attr)? {
            session.getattr(attr)?.call0()?
        } else {
            session
        };
        let codec = codec.cast::<PyCapsule>()?;
        let pointer: NonNull<FFI_LogicalExtensionCodec> = codec
            .pointer_checked(Some(c"datafusion_logical_extension_codec"))?
            .cast();
        // SAFETY: the capsule's name says it holds an FFI_LogicalExtensionCodec; it is cloned.
        let codec = unsafe { pointer.as_ref() }.clone();
        let function = FFI_TableFunction::new_with_ffi_codec(self.function.clone(), None, codec);
        PyCapsule::new_with_value(py, function, c"datafusion_table_function")
    }

    #[getter]
    fn name(&self) -> &str {
        &self.name
    }
}
