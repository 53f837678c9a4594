#pragma once
// Takes a buyer's personal data out of an incident before it leaves the console, and does so
// consistently: within one redactor the same value always becomes the same placeholder, in
// free text, in call arguments, in results and in notes. Two calls with the same inputs
// therefore still have the same intent key after redaction, and different inputs different
// ones, so an exported incident shows the same repeats as the original.
//
// What counts as the buyer's personal data here:
//   - names: the ticket's customer, values under name keys of arguments and results
//     (first_name, last_name, full_name, buyer, customer, card holder, and `name` where the
//     object around it is about a person), names a user id spells (yusuf_rossi_9620), and
//     names a text introduces ("my name is ..."); each name, and each of its parts alone,
//     becomes "Buyer N";
//   - e-mail addresses, anywhere: "buyerN@example.invalid";
//   - phone numbers: written with separators or a leading "+" ("555-123-4567",
//     "(555) 123-4567", "+44 20 7946 0958"), and any number found under a phone key: "[phone N]";
//   - postal addresses: street lines ("123 Main St", "Apt 4B", "Suite 394") and values under
//     address keys: "[address N]"; cities "[city N]"; postal codes "[zip N]";
//   - user ids that contain the buyer's name: "[user id N]"; dates of birth: "[birth date N]";
//     card digits under card keys (last_four, card_number): "[card N]".
// A value found under one of those keys is also replaced wherever it appears in text.
//
// Not personal data here, and kept: sellers (businesses), order, item, product, payment
// method, refund and reservation ids, amounts, dates and times, tool names, states and
// countries, idempotency keys, and numbers without separators (a 10-digit run is an item id
// far more often than a phone number, unless a phone key named it). Names nobody marked (a
// name that appears only in free text without "my name is") cannot be recognised and stay.

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
    int values = 0;         // distinct values, each with its own placeholder
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

    // ---- redacting: values met here for the first time are learned too ----
    QString redactText(const QString &text);
    nlohmann::json redactJson(const nlohmann::json &value);
    // Stored JSON text, redacted and written back compact; text that is not JSON as text.
    QString redactJsonText(const QString &text);

    // The placeholder a value has (or would get as `kind`), for tests and summaries.
    std::optional<QString> placeholderOf(const QString &value) const;

    // Kinds that had something redacted, in PersonalKind order.
    QList<RedactionCount> counts() const;
    // "1 name (9 places), 1 e-mail (1 place)"; "nothing" when nothing was found.
    QString summary() const;

private:
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
    std::optional<PersonalKind> kindOfKey(const QString &key, bool personObject) const;
    bool spellsKnownName(const QString &userId) const;
    const QRegularExpression &knownValuesPattern(bool caseSensitive);
    void countReplacement(PersonalKind kind);

    QHash<QString, QString> m_placeholders;           // folded value (or phone digits) -> placeholder
    QHash<QString, PersonalKind> m_kindOfPlaceholder; // placeholder -> kind
    QHash<QString, QString> m_nameParts;              // folded part of a name -> "Buyer N"
    QMap<PersonalKind, int> m_next;                   // values per kind so far
    QMap<PersonalKind, qint64> m_occurrences;
    QStringList m_literals;                           // learned values, found again in text
    QList<std::pair<QString, bool>> m_userIdCandidates; // (id, under a user-id key): decided once names are known
    QRegularExpression m_caseInsensitive;
    QRegularExpression m_caseSensitive;
    bool m_patternsStale = true;
    bool m_learning = false;
};

} // namespace verity
