//! numpy's `.npz` (what `np.savez` writes: a zip of uncompressed `.npy` files), read only as far
//! as py3langid's model needs: little-endian 1- and 2-dimensional arrays in C order.

use std::collections::HashMap;

pub struct Npz<'a> {
    /// Each member's name (without `.npy`) and its bytes.
    members: HashMap<String, &'a [u8]>,
}

fn u16_at(b: &[u8], at: usize) -> Option<usize> {
    Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?) as usize)
}

fn u32_at(b: &[u8], at: usize) -> Option<usize> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?) as usize)
}

impl<'a> Npz<'a> {
    /// The members listed in the zip's central directory; only stored (uncompressed) ones.
    pub fn new(zip: &'a [u8]) -> Result<Self, String> {
        let bad = |what: &str| format!("not an npz file: {what}");
        // The end-of-central-directory record: 22 bytes, then a comment of up to 65535.
        let end = (zip.len().saturating_sub(22 + 65535)..=zip.len().saturating_sub(22))
            .rev()
            .find(|&i| zip[i..].starts_with(b"PK\x05\x06"))
            .ok_or_else(|| bad("no end of central directory"))?;
        let entries = u16_at(zip, end + 10).ok_or_else(|| bad("truncated"))?;
        let mut at = u32_at(zip, end + 16).ok_or_else(|| bad("truncated"))?;
        let mut members = HashMap::new();
        for _ in 0..entries {
            let header = zip.get(at..at + 46).ok_or_else(|| bad("truncated"))?;
            if !header.starts_with(b"PK\x01\x02") {
                return Err(bad("a broken central directory"));
            }
            let method = u16_at(header, 10).unwrap_or(0);
            let size = u32_at(header, 20).unwrap_or(0);
            let (name_len, extra_len, comment_len) = (
                u16_at(header, 28).unwrap_or(0),
                u16_at(header, 30).unwrap_or(0),
                u16_at(header, 32).unwrap_or(0),
            );
            let local = u32_at(header, 42).unwrap_or(0);
            let name = zip
                .get(at + 46..at + 46 + name_len)
                .ok_or_else(|| bad("truncated"))?;
            let name = String::from_utf8_lossy(name).into_owned();
            if method != 0 || size == u32::MAX as usize || local == u32::MAX as usize {
                return Err(bad(&format!("{name} is compressed or zip64")));
            }
            let data_at = local
                + 30
                + u16_at(zip, local + 26).ok_or_else(|| bad("truncated"))?
                + u16_at(zip, local + 28).ok_or_else(|| bad("truncated"))?;
            let data = zip
                .get(data_at..data_at + size)
                .ok_or_else(|| bad(&format!("{name} is truncated")))?;
            let name = name.strip_suffix(".npy").unwrap_or(&name).to_string();
            members.insert(name, data);
            at += 46 + name_len + extra_len + comment_len;
        }
        Ok(Npz { members })
    }

    /// An array's type (`descr`, e.g. `<f4`) and its elements' bytes.
    fn array(&self, name: &str) -> Result<(String, &'a [u8]), String> {
        let bad = |what: &str| format!("{name}.npy: {what}");
        let npy = self.members.get(name).ok_or_else(|| bad("missing"))?;
        if !npy.starts_with(b"\x93NUMPY") || npy.len() < 10 {
            return Err(bad("not an npy array"));
        }
        let (header_len, start) = match npy[6] {
            1 => (u16_at(npy, 8).unwrap_or(0), 10),
            _ => (u32_at(npy, 8).ok_or_else(|| bad("truncated"))?, 12),
        };
        let header = npy
            .get(start..start + header_len)
            .ok_or_else(|| bad("truncated"))?;
        let header = String::from_utf8_lossy(header);
        if header.contains("'fortran_order': True") {
            return Err(bad("in Fortran order"));
        }
        let descr = header
            .split("'descr': '")
            .nth(1)
            .and_then(|rest| rest.split('\'').next())
            .ok_or_else(|| bad("no descr"))?;
        Ok((descr.to_string(), &npy[start + header_len..]))
    }

    fn typed(&self, name: &str, descr: &str, width: usize) -> Result<&'a [u8], String> {
        let (found, data) = self.array(name)?;
        if found != descr || data.len() % width != 0 {
            return Err(format!("{name}.npy: expected {descr}, found {found}"));
        }
        Ok(data)
    }

    pub fn f32(&self, name: &str) -> Result<Vec<f32>, String> {
        let data = self.typed(name, "<f4", 4)?;
        Ok(data
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
            .collect())
    }

    pub fn i32(&self, name: &str) -> Result<Vec<i32>, String> {
        let data = self.typed(name, "<i4", 4)?;
        Ok(data
            .chunks_exact(4)
            .map(|b| i32::from_le_bytes(b.try_into().unwrap()))
            .collect())
    }

    /// `<f2` values, as their bits.
    pub fn f16_bits(&self, name: &str) -> Result<Vec<u16>, String> {
        let data = self.typed(name, "<f2", 2)?;
        Ok(data
            .chunks_exact(2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
            .collect())
    }

    /// `<u2` or `<u4` values.
    pub fn unsigned(&self, name: &str) -> Result<Vec<u32>, String> {
        let (descr, data) = self.array(name)?;
        match descr.as_str() {
            "<u2" => Ok(data
                .chunks_exact(2)
                .map(|b| u32::from(u16::from_le_bytes([b[0], b[1]])))
                .collect()),
            "<u4" => Ok(data
                .chunks_exact(4)
                .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
                .collect()),
            other => Err(format!("{name}.npy: expected <u2 or <u4, found {other}")),
        }
    }

    /// A `<U{n}` array (UTF-32, each string padded with NULs to n characters).
    pub fn unicode(&self, name: &str) -> Result<Vec<String>, String> {
        let (descr, data) = self.array(name)?;
        let width: usize = descr
            .strip_prefix("<U")
            .and_then(|n| n.parse().ok())
            .filter(|&n| n > 0)
            .ok_or_else(|| format!("{name}.npy: expected <U, found {descr}"))?;
        data.chunks_exact(4 * width)
            .map(|s| {
                s.chunks_exact(4)
                    .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
                    .take_while(|&c| c != 0)
                    .map(|c| char::from_u32(c).ok_or_else(|| format!("{name}.npy: not UTF-32")))
                    .collect()
            })
            .collect()
    }
}

/// IEEE half precision to single: every half value is exactly a single value.
pub fn f16_to_f32(h: u16) -> f32 {
    let sign = u32::from(h >> 15) << 31;
    let exponent = (h >> 10) & 0x1f;
    let mantissa = u32::from(h & 0x3ff);
    let bits = match exponent {
        0 if mantissa == 0 => sign,
        // Subnormal: mantissa * 2^-24.
        0 => {
            let magnitude = mantissa as f32 * f32::powi(2.0, -24);
            return if sign == 0 { magnitude } else { -magnitude };
        }
        0x1f => sign | 0x7f80_0000 | (mantissa << 13),
        e => sign | ((u32::from(e) + 127 - 15) << 23) | (mantissa << 13),
    };
    f32::from_bits(bits)
}

#[cfg(test)]
mod tests {
    use super::f16_to_f32;

    #[test]
    fn half_precision() {
        assert_eq!(f16_to_f32(0x3c00), 1.0);
        assert_eq!(f16_to_f32(0xc000), -2.0);
        assert_eq!(f16_to_f32(0x0001), 5.960464477539063e-8);
        assert_eq!(f16_to_f32(0x8001), -5.960464477539063e-8);
        assert_eq!(f16_to_f32(0x7bff), 65504.0);
        assert!(f16_to_f32(0x7c00).is_infinite());
        assert!(f16_to_f32(0x7e00).is_nan());
    }
}
