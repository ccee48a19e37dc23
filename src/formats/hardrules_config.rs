//! bicleaner-hardrules' rules configuration (its `-c` file): a YAML mapping of rule names to
//! values over the defaults, read as PyYAML reads it (YAML 1.1's `yes`, `no`, `on` and `off` are
//! booleans), into `clean::hardrules::Config`.

use std::path::Path;

use anyhow::{Context, Result, bail};
use serde_yaml::Value as Yaml;

use crate::clean::hardrules::{Config, Param};

/// The configuration in a file.
pub fn read(path: &Path) -> Result<Config> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("reading the rules configuration {}", path.display()))?;
    parse(&text).with_context(|| path.display().to_string())
}

/// The configuration in a YAML text (a file's, or a flow mapping: `{no_urls: true}`); empty
/// is the defaults.
pub fn parse(text: &str) -> Result<Config> {
    let yaml: Yaml = serde_yaml::from_str(text).context("not YAML")?;
    let mut config = Config::default();
    match yaml {
        Yaml::Null => {}
        Yaml::Mapping(map) => {
            for (key, value) in map {
                let Some(key) = key.as_str() else {
                    bail!("a key that is not a rule name: {key:?}");
                };
                config
                    .set(key, &param(&value))
                    .map_err(anyhow::Error::msg)?;
            }
        }
        other => bail!("expected a mapping of rule names to values, found {other:?}"),
    }
    Ok(config)
}

fn param(value: &Yaml) -> Param {
    match value {
        Yaml::Null => Param::Null,
        Yaml::Bool(b) => Param::Bool(*b),
        Yaml::Number(n) => Param::Number(n.as_f64().unwrap_or(f64::NAN)),
        Yaml::String(s) => match s.as_str() {
            "yes" | "Yes" | "YES" | "on" | "On" | "ON" => Param::Bool(true),
            "no" | "No" | "NO" | "off" | "Off" | "OFF" => Param::Bool(false),
            _ => Param::Text(s.clone()),
        },
        Yaml::Sequence(items) => Param::List(items.iter().map(param).collect()),
        // No rule takes a mapping: the rule reports it as a wrong type.
        Yaml::Mapping(_) => Param::Text(format!("{value:?}")),
        Yaml::Tagged(tagged) => param(&tagged.value),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clean::hardrules::Rule;

    #[test]
    fn reads_yaml_as_pyyaml_does() {
        let config = parse("no_urls: yes\nno_titles: off\nlength_ratio: 2").unwrap();
        assert!(config.enabled(Rule::NoUrls) && !config.enabled(Rule::NoTitles));
        assert_eq!(parse("").unwrap(), Config::default());
        assert!(
            parse("{no_url: true}")
                .unwrap_err()
                .to_string()
                .contains("no_url")
        );
        assert!(parse("[1, 2]").is_err());
    }
}
