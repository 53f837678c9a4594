#pragma once
// Takes a buyer's personal data out of an incident before it leaves the console, and does so
// consistently: within one redactor the same value always becomes the same placeholder, in
// free text, in call arguments, in results and in notes. Two calls with the same inputs
// therefore still have the same intent key after redaction, and different inputs different
// ones, so an exported incident shows the same repeats as the original.
//
// What counts as the buyer's personal data here:
//   - names: the ticket's customer, values under name keys of arguments and results
//     (first_name, last_name, full_name, buyer, customer, card holder, customerName,
//     recipientName, any "<person>_name", and `name` where the object around it is about a person
//     or where a parcel goes: customer, shipTo, billing, an address block), names a user id
//     spells (yusuf_rossi_9620), and names a text introduces ("my name is ..."); each name, and
//     each of its parts alone (and each half of "Smith-Jones"), becomes "Buyer N". Titles
//     (Mr, Mrs, Dr, ...) are not part of a name.
//   - e-mail addresses, anywhere, also with "@" written "%40": "buyerN@example.invalid";
//   - phone numbers: written with separators or a leading "+" ("555-123-4567", "555-1234",
//     "(555) 123-4567", "+44 20 7946 0958", "+33 1 42 68 53 00"), national numbers with a trunk
//     0 and 10-11 digits ("07700 900123", "(020) 7946 0958"), and any number under a phone key:
//     "[phone N]"; one number is one placeholder however written (its last ten digits);
//   - postal addresses: street lines ("123 Main St", "42 rue de Rivoli", "Hauptstraße 5",
//     "Via Roma 5"), units ("Apt 4B", "Suite 394", "PO Box 123") and values under address keys:
//     "[address N]"; cities "[city N]" (under city keys, before a UK postcode, after a
//     five-digit postcode: "London NW1 6XE", "75001 Paris"); postal codes "[zip N]";
//   - card numbers: 13-19 digits in groups that pass the Luhn check ("4111 1111 1111 1111"),
//     and card digits under card keys (last_four, card_number): "[card N]";
//   - user ids that contain the buyer's name: "[user id N]"; dates of birth: "[birth date N]".
// Keys are read after normalisation: camelCase split, lower case, space, '-' and '.' as '_'
// ("dateOfBirth", "postal-code" and "ship_to.name" are date_of_birth, postal_code, ship_to_name).
//
// Known values: a value found under one of those keys (or introduced, or the ticket's buyer) is
// replaced wherever it appears again: in text, in trace fields and in URLs, as written or
// percent-encoded ("dana.w%40example.com", "Dana+Whitfield", "O%27Brien"), between letters
// and digits only, so '_' separates words ("re_Dana_Whitfield", "/customers/dana_whitfield").
// Full names match in any case. A name part alone matches in any case ("O'Brien", "O'BRIEN",
// "McDonald", "mcdonald"), except parts shorter than three letters and parts that are everyday
// English words ("May", "Will", "Rose", "Bill", "Mark", "Grant"; see isCommonWord): those only
// match as written with a capital, so "you may" and "we will grant it" stay; so does a full
// name made only of such parts ("Will Grant", but not "WILL GRANT").
//
// URLs (redactUrl, and URLs inside text) are decoded before matching: each path segment, and
// each query value, read with its key as a JSON value would be ("?customer_email=..."; `name`
// counts as a person's when another key of the query is about a person); what changed is
// re-encoded, what did not change stays byte-identical. Ids and idempotency keys of trace lines
// (redactIdentifier) are redacted as text, so a key without personal data stays byte-identical
// and the same key always becomes the same redacted key.
//
// Not personal data here, and kept: sellers (businesses), order, item, product, payment
// method, refund and reservation ids, amounts, dates and times, tool names, states and
// countries, and numbers without separators (a 10-digit run is an item id far more often than
// a phone number, unless a phone key named it). Names nobody marked (a name that appears only
// in free text without "my name is") cannot be recognised and stay.

#include <QHash>
#include <QList>
#include <QMap>
#include <QRegularExpression>
#include <QString>
#include <QStringList>

#include <nlohmann/json.hpp>

#include <optional>
#include <utility>

namespace verity {

enum class PersonalKind { Name, Email, Phone, Address, City, PostalCode, UserId, BirthDate, PaymentCard };
QString personalKindId(PersonalKind kind); // "name", "email", "phone", "address", "city", "zip", ...
QString personalKindLabel(PersonalKind kind, qint64 count); // "2 names", "1 e-mail"

// How much of one kind was taken out.
struct RedactionCount
{
    PersonalKind kind = PersonalKind::Name;
    int values = 0; // distinct values, each with its own placeholder
    qint64 occurrences = 0; // places replaced
};

class BuyerDataRedactor
{
public:
    BuyerDataRedactor();

    // ---- learning: show the redactor everything first, so a name that a later argument
    // reveals is also taken out of an earlier message ----
    void learnBuyer(const QString &name, const QString &email);
    void learnFromText(const QString &text);
    void learnFromJson(const nlohmann::json &value);
    // Stored JSON (arguments, raw results); text that is not JSON is learned from as text.
    void learnFromJsonText(const QString &text);
    // A URL or a path with a query: query values are read with their keys.
    void learnFromUrl(const QString &url);

    // ---- redacting: values met here for the first time are learned too ----
    QString redactText(const QString &text);
    nlohmann::json redactJson(const nlohmann::json &value);
    // Stored JSON text, redacted and written back compact; text that is not JSON as text.
    QString redactJsonText(const QString &text);
    // A URL or path: components decoded, redacted and re-encoded; unchanged ones kept as written.
    QString redactUrl(const QString &url);
    // An id or key (a trace line's object id, an idempotency key): as text, but not read for URLs.
    QString redactIdentifier(const QString &text);

    // The placeholder a value has (or would get as `kind`), for tests and summaries.
    std::optional<QString> placeholderOf(const QString &value) const;

    // Kinds that had something redacted, in PersonalKind order.
    QList<RedactionCount> counts() const;
    // "1 name (9 places), 1 e-mail (1 place)"; "nothing" when nothing was found.
    QString summary() const;

private:
    // Known values, as one regular expression each.
    struct KnownPatterns
    {
        QRegularExpression emails; // learned e-mail addresses
        QRegularExpression literals; // other learned values, any case
        QRegularExpression partsAnyCase; // name parts that are no everyday word
        QRegularExpression partsCapital; // the others, only with a capital
    };

    // The placeholder of `value` as `kind`, making one when new. Empty for values too short
    // to stand for anybody.
    QString placeholderFor(PersonalKind kind, const QString &value);
    // Registers a person's full name and each part of it; returns "Buyer N".
    QString learnName(const QString &fullName);
    void learnUserId(const QString &value, bool underUserIdKey);
    void settleUserIds();
    // Learns from (m_learning) or redacts a JSON value; `aboutPerson`: the key above it says
    // the value describes a person, so a plain `name` in it is the person's.
    nlohmann::json walkJson(const nlohmann::json &value, bool aboutPerson);
    // Learns from (m_learning) or redacts a URL.
    QString walkUrl(const QString &url);
    // One URL component: decoded, redacted as `kind` or as an identifier, re-encoded if changed.
    QString walkUrlComponent(const QString &raw, std::optional<PersonalKind> kind, bool query);
    // `identifier`: a URL component or an id, not searched for URLs.
    QString redact(const QString &text, bool identifier);
    bool spellsKnownName(const QString &userId) const;
    const KnownPatterns &knownPatterns();
    void countReplacement(PersonalKind kind);

    QHash<QString, QString> m_placeholders; // folded value (or phone digits) -> placeholder
    QHash<QString, PersonalKind> m_kindOfPlaceholder; // placeholder -> kind
    QHash<QString, QString> m_nameParts; // folded part of a name -> "Buyer N"
    QMap<PersonalKind, int> m_next; // values per kind so far
    QMap<PersonalKind, qint64> m_occurrences;
    QStringList m_literals; // learned values, found again in text
    QStringList m_emails; // learned e-mail addresses, found before the e-mail pattern
    QList<std::pair<QString, bool>>
            m_userIdCandidates; // (id, under a user-id key): decided once names are known
    KnownPatterns m_known;
    bool m_patternsStale = true;
    bool m_learning = false;
};

} // namespace verity
