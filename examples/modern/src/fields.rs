//! An iterator whose items borrow the value it came from, with the lifetime left out of the
//! signature (`fn fields(&self) -> Fields`), as mime's `Mime::params`: collected, its items
//! still borrow the record, so the record must outlive them.

/// A `;`-separated record of `name=value` fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    text: String,
}

/// One field of a [`Record`], borrowed from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field<'a> {
    pub name: &'a str,
    pub value: Option<&'a str>,
}

/// The fields of a record, in order.
pub struct Fields<'a> {
    rest: &'a str,
}

impl Record {
    pub fn parse(text: &str) -> Record {
        Record {
            text: text.trim().to_string(),
        }
    }

    pub fn fields(&self) -> Fields {
        Fields { rest: &self.text }
    }
}

impl<'a> Fields<'a> {
    /// The fields of `text` without a record (mime's `MimeIter::new`): an iterator made by a
    /// constructor returning `Self`.
    pub fn new(text: &'a str) -> Self {
        Fields { rest: text }
    }
}

impl<'a> Iterator for Fields<'a> {
    type Item = Field<'a>;

    fn next(&mut self) -> Option<Field<'a>> {
        while !self.rest.is_empty() {
            let (part, rest) = self.rest.split_once(';').unwrap_or((self.rest, ""));
            self.rest = rest;
            let part = part.trim();
            if part.is_empty() {
                continue;
            }
            return Some(match part.split_once('=') {
                Some((name, value)) => Field {
                    name: name.trim(),
                    value: Some(value.trim()),
                },
                None => Field {
                    name: part,
                    value: None,
                },
            });
        }
        None
    }
}
