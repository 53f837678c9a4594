#pragma once
// The rules BuyerDataRedactor applies: which keys name personal data, which text shapes are
// personal data, and how values are written in URLs. Kept apart from the redactor so the
// tables can be read (and reviewed) on their own; the redactor owns placeholders and state.

#include "redaction.h"

#include <QRegularExpression>
#include <QString>

#include <optional>

namespace verity::redaction {

// ---- keys ----

// "customerName", "Ship-To.Name", "postal code" -> "customer_name", "ship_to_name", "postal_code":
// camelCase is split, then lower case, with space, '-' and '.' as '_'.
QString normalizedKey(const QString &key);

// The kind of personal data a value under `key` (normalised) is. `personObject`: the object
// around it describes a person, so a plain `name` in it is the person's.
std::optional<PersonalKind> kindOfKey(const QString &key, bool personObject);

// Objects under `key` describe a person (or where a parcel goes): `name` in them is a name.
bool isPersonKey(const QString &key);
// A key beside `name` that says the object describes a person, not a product or a seller.
bool isPersonSignal(const QString &key);
bool isFirstNameKey(const QString &key);
bool isLastNameKey(const QString &key);

// ---- names ----

bool isNameTitle(const QString &folded); // "mr", "mrs", "dr", ...
// A name part that is also an ordinary English word ("may", "will", "rose", "bill"): matched
// only as written with a capital, never case-insensitively.
bool isCommonWord(const QString &folded);

// ---- text shapes ----

const QRegularExpression &emailPattern(); // also with "@" written "%40"
const QRegularExpression &phonePattern(); // "+44 20 7946 0958", "555-123-4567", "(555) 123-4567"
const QRegularExpression &trunkPhonePattern(); // "07700 900123", "(020) 7946 0958": check 10-11 digits
const QRegularExpression &shortPhonePattern(); // "555-1234"
const QRegularExpression &cardPattern(); // 13-19 digits in groups: check luhnValid
const QRegularExpression &streetPattern(); // "443 Maple Drive", "42 rue de Rivoli", "Hauptstraße 5", ...
const QRegularExpression &unitPattern(); // "Apt 4B", "Suite 394", "PO Box 123"
const QRegularExpression &ukPostcodePattern(); // group 1: city before it (may be empty), 2: "NW1 6XE"
const QRegularExpression &zipCityPattern(); // group 1: "75001", 2: "Paris"
const QRegularExpression &introducedNamePattern();
const QRegularExpression &userIdShape();
const QRegularExpression &userIdInText();
const QRegularExpression &urlInText();

int digitCount(const QString &text);
bool luhnValid(const QString &text); // over the digits of `text`

// ---- URL encoding ----

// %XX decoded as UTF-8; `plusIsSpace` for query strings. Malformed escapes are kept as written.
QString percentDecoded(const QString &text, bool plusIsSpace = false);
// Unreserved characters kept; `plusForSpace` writes spaces as '+' (query strings that did).
QString percentEncoded(const QString &text, bool plusForSpace);

// A regular expression for `value` as it may be written: any run of spaces, spaces as '+' or
// "%20", apostrophes straight or curly, and any other non-alphanumeric character (or non-ASCII
// letter) percent-encoded or not, in either case of hex digit.
QString literalPattern(const QString &value);

} // namespace verity::redaction
