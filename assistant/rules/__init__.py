"""Rule systems: data (TOML) plus small pure functions handed their dice."""
