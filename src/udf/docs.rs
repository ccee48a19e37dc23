//! Where pairmetrics' functions appear in DataFusion's generated function documentation.

use datafusion::logical_expr::DocSection;

pub(crate) const DOC_SECTION: DocSection = DocSection {
    include: true,
    label: "pairmetrics",
    description: Some("Sentence-pair metrics and the helpers that prepare their inputs."),
};

/// A function's parameters as its documented syntax gives them, so that front ends (Python's
/// functions) build signatures from data: `led(src, tgt [, links])` has `src`, `tgt` required,
/// `links` optional.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parameters {
    pub required: Vec<String>,
    pub optional: Vec<String>,
    /// More arguments may follow the optional ones (`loglinear(weights, f1 [, f2, ...])`).
    pub variadic: bool,
}

impl Parameters {
    /// The parameters of a syntax line. Alternatives (`f(a, start, len) or f(a, positions)`)
    /// merge: places past the shortest form are optional, and a place the forms name
    /// differently takes both names (`start_or_positions`).
    pub fn of_syntax(syntax: &str) -> Result<Parameters, String> {
        let syntax = syntax.trim_end();
        let variadic = syntax.ends_with("...)") || syntax.ends_with("...])");
        let plain = syntax.replace(", ...", "");
        let mut forms: Vec<Vec<(String, bool)>> = Vec::new();
        for form in plain.split(" or ") {
            let (Some(open), Some(close)) = (form.find('('), form.rfind(')')) else {
                return Err(format!("cannot read the arguments of {syntax:?}"));
            };
            let (mut names, mut depth, mut word) = (Vec::new(), 0, String::new());
            for ch in form[open + 1..close].chars().chain([',']) {
                match ch {
                    '[' | ']' | ',' => {
                        if !word.trim().is_empty() {
                            names.push((word.trim().to_string(), depth > 0));
                        }
                        word.clear();
                        depth += match ch {
                            '[' => 1,
                            ']' => -1,
                            _ => 0,
                        };
                    }
                    _ => word.push(ch),
                }
            }
            forms.push(names);
        }
        let shortest = forms
            .iter()
            .map(|f| f.iter().filter(|(_, optional)| !optional).count())
            .min()
            .unwrap_or(0);
        let longest = forms.iter().map(Vec::len).max().unwrap_or(0);
        let mut parameters = Parameters {
            required: Vec::new(),
            optional: Vec::new(),
            variadic,
        };
        for place in 0..longest {
            let mut names: Vec<&str> = Vec::new();
            for (name, _) in forms.iter().filter_map(|f| f.get(place)) {
                if !names.contains(&name.as_str()) {
                    names.push(name);
                }
            }
            let name = names.join("_or_");
            let is_identifier = name
                .chars()
                .next()
                .is_some_and(|c| c.is_alphabetic() || c == '_')
                && name.chars().all(|c| c.is_alphanumeric() || c == '_');
            if !is_identifier {
                return Err(format!("cannot read the arguments of {syntax:?}"));
            }
            let optional = place >= shortest
                || forms
                    .iter()
                    .any(|f| f.get(place).is_some_and(|(_, optional)| *optional));
            match optional {
                true => parameters.optional.push(name),
                false => parameters.required.push(name),
            }
        }
        Ok(parameters)
    }
}

#[cfg(test)]
mod tests {
    use super::Parameters;

    fn of(syntax: &str) -> (Vec<String>, Vec<String>, bool) {
        let p = Parameters::of_syntax(syntax).unwrap();
        (p.required, p.optional, p.variadic)
    }

    fn names(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| n.to_string()).collect()
    }

    #[test]
    fn syntax_lines_give_parameters() {
        assert_eq!(
            of("led(src, tgt [, links])"),
            (names(&["src", "tgt"]), names(&["links"]), false)
        );
        assert_eq!(
            of("loglinear(weights, feature1 [, feature2, ...])"),
            (names(&["weights", "feature1"]), names(&["feature2"]), true)
        );
        assert_eq!(
            of("f(a, start, len) or f(a, positions)"),
            (names(&["a", "start_or_positions"]), names(&["len"]), false)
        );
        assert!(Parameters::of_syntax("no parentheses").is_err());
        assert!(Parameters::of_syntax("f(a b)").is_err());
    }
}
