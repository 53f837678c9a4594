#pragma once
// What a person types into the record (their name, a reference, a note) is shown later exactly
// as stored. A control or formatting character (an escape, a bidi override, a zero-width
// joiner) would make it read differently from what it holds, in the console and in a terminal,
// so such fields refuse them, and text printed to a terminal names them instead.

#include "expected.h"

#include <QString>
#include <QStringView>

#include <optional>

namespace verity {

enum class LineBreaks { Refused, Allowed }; // Allowed: a note may keep \n and \t

// The position (in UTF-16 units) of the first character that would not be seen as itself.
std::optional<qsizetype> firstHiddenCharacter(QStringView text, LineBreaks breaks = LineBreaks::Refused);

// Nothing when `text` shows as itself; otherwise "<field> holds U+202E (a control or formatting
// character) at character 5: type it as plain text".
Expected<void> checkShownAsTyped(QStringView field, QStringView text,
                                 LineBreaks breaks = LineBreaks::Refused);

// A person's name as it goes into every audit entry and piece of evidence: shown as typed and
// at most 100 characters. `field` names where it was typed ("--operator", "Your name").
Expected<void> checkPersonName(QStringView field, QStringView name);

// `text` for a terminal: each hidden character written as \u{202E}, so what is printed is what
// is stored and nothing printed can move the cursor or recolour the screen.
QString visibleText(QStringView text, LineBreaks breaks = LineBreaks::Refused);

} // namespace verity
