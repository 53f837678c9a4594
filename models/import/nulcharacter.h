#pragma once
// U+0000 is a character of JSON and of SQLite's text, but PostgreSQL's text cannot hold it: a
// line that brings one into a team's database is refused by name, as any other bad field is.

#include "nativeevent.h"

namespace verity {

// The field of `event` whose text holds U+0000 ("text", "seller.name", "order.items[0].title"),
// or empty when none does. JSON values (arguments, results) are stored as JSON text, where it
// stays escaped, so only plain texts are looked at.
QString fieldWithNulCharacter(const NativeEvent &event);

} // namespace verity
