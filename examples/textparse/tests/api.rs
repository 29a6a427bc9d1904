use textparse::*;

#[test]
fn config_line() {
    let c = parse_config("name=web; timeout=1m; retries=2; verbose=on; tags=a, b,").unwrap();
    assert_eq!(c.name, "web");
    assert_eq!(c.timeout_secs, 60);
    assert_eq!(c.retries, 2);
    assert!(c.verbose);
    assert_eq!(c.tags, vec!["a".to_string(), "b".to_string()]);
    assert_eq!(parse_config("# comment;;name=x").unwrap().name, "x");
}

#[test]
fn config_errors() {
    assert_eq!(parse_config("  "), Err(ParseError::Empty));
    assert_eq!(parse_config("name"), Err(ParseError::MissingSeparator(0)));
    assert_eq!(parse_config("name=a;=b"), Err(ParseError::EmptyKey(1)));
    assert_eq!(
        parse_config("name=a;name=b"),
        Err(ParseError::DuplicateKey(1))
    );
    assert_eq!(parse_config("colour=red"), Err(ParseError::UnknownKey(0)));
    assert_eq!(parse_config("retries=11"), Err(ParseError::OutOfRange));
    assert_eq!(parse_config("retries=x"), Err(ParseError::BadNumber));
    assert_eq!(parse_config("verbose=perhaps"), Err(ParseError::BadBool(0)));
    assert_eq!(parse_config("timeout=8d"), Err(ParseError::OutOfRange));
    assert_eq!(parse_config("timeout=1234567s"), Err(ParseError::Overflow));
    assert_eq!(
        parse_config("timeout=5q"),
        Err(ParseError::InvalidChar('q'))
    );
}

#[test]
fn versions() {
    let v = Version::parse("v1.2.3-beta").unwrap();
    assert_eq!(v.pre.as_deref(), Some("beta"));
    assert_eq!(v.render(), "1.2.3-beta");
    assert_eq!(v.bump("patch").unwrap().render(), "1.2.3");
    assert_eq!(
        Version::new(1, 2, 3).bump("minor").unwrap(),
        Version::new(1, 3, 0)
    );
    assert_eq!(
        Version::new(1, 2, 3).bump("major").unwrap(),
        Version::new(2, 0, 0)
    );
    assert_eq!(
        Version::new(1, 2, 3).bump("huge"),
        Err(ParseError::BadNumber)
    );
    assert_eq!(Version::parse("1.2"), Err(ParseError::MissingPart(2)));
    assert_eq!(Version::parse("1.2.3333333"), Err(ParseError::Overflow));
    assert_eq!(Version::parse("1.2.3.4"), Err(ParseError::TooManyParts));
    assert_eq!(Version::parse("1.x.3"), Err(ParseError::BadNumber));
    assert_eq!(Version::parse("1.2.3-"), Err(ParseError::EmptyPreRelease));
    assert!(Version::new(1, 2, 0).is_compatible(&Version::new(1, 4, 1)));
    assert!(!Version::new(0, 2, 0).is_compatible(&Version::new(0, 3, 0)));
    assert!(!Version::new(1, 0, 0).is_compatible(&Version::new(2, 0, 0)));
    assert_eq!(
        ParseError::TooManyParts.to_string(),
        "too many version parts"
    );
}
