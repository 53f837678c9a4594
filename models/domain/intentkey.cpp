#include "intentkey.h"

#include "jsontext.h"
#include "money.h"
#include "sha256.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>

namespace verity {

using nlohmann::json;

namespace {

Expected<QByteArray> integerText(const json &value, const QString &field)
{
    if (std::optional<qint64> number = wholeNumber(value))
        return QByteArray::number(*number);
    return makeError(QStringLiteral("intent field \"%1\": expected a whole number, got %2")
                             .arg(field, fromUtf8String(value.dump())));
}

Expected<QByteArray> fieldValue(const IntentField &field, const json &value)
{
    switch (field.type) {
    case IntentField::Type::Integer:
        return integerText(value, field.name);
    case IntentField::Type::Json:
        // nlohmann keeps object keys sorted, so the dump is canonical for the same value.
        return sha256Hex(
                QByteArray::fromStdString(value.dump(-1, ' ', false, json::error_handler_t::replace)));
    case IntentField::Type::String:
    case IntentField::Type::Sha256: {
        QString text;
        if (value.is_string())
            text = fromUtf8String(value.get_ref<const std::string &>());
        else if (value.is_number_integer() && field.type == IntentField::Type::String)
            text = QString::number(value.get<qint64>());
        else
            return makeError(QStringLiteral("intent field \"%1\": expected text, got %2")
                                     .arg(field.name, fromUtf8String(value.dump())));
        // The same words typed with composed or decomposed accents are the same intent.
        const QByteArray utf8 = text.normalized(QString::NormalizationForm_C).toUtf8();
        if (field.type == IntentField::Type::Sha256)
            return sha256Hex(utf8);
        if (text.trimmed().isEmpty())
            return makeError(QStringLiteral("intent field \"%1\": is empty").arg(field.name));
        return utf8;
    }
    }
    Q_UNREACHABLE();
}

} // namespace

Expected<QByteArray> canonicalIntent(const ToolSpec &tool, const json &arguments, const TicketFacts &ticket)
{
    QByteArray out;
    out.reserve(256); // most intents fit: grown once instead of at every field
    appendNetstring(out, QByteArrayLiteral("verity-intent-v1"));
    appendNetstring(out, tool.name.toUtf8());
    for (const IntentField &field : tool.intent) {
        const std::string name = field.name.toStdString();
        Expected<QByteArray> value = makeError(QString());
        if (arguments.is_object() && arguments.contains(name) && !arguments.at(name).is_null()) {
            value = fieldValue(field, arguments.at(name));
        } else if (ticket.contains(field.name) && !ticket.value(field.name).isEmpty()) {
            value = fieldValue(field, json(ticket.value(field.name).toStdString()));
        } else {
            return makeError(QStringLiteral("intent field \"%1\" of %2: missing from the arguments "
                                            "and the ticket")
                                     .arg(field.name, tool.name));
        }
        if (!value)
            return value.error();
        appendNetstring(out, field.name.toUtf8());
        appendNetstring(out, *value);
    }
    return out;
}

Expected<QString> intentKey(const ToolSpec &tool, const json &arguments, const TicketFacts &ticket)
{
    Expected<QByteArray> canonical = canonicalIntent(tool, arguments, ticket);
    if (!canonical)
        return canonical.error();
    return QString::fromLatin1(sha256Hex(*canonical));
}

namespace {

json normalised(const json &value)
{
    switch (value.type()) {
    case json::value_t::object: {
        json out = json::object();
        for (auto it = value.begin(); it != value.end(); ++it) {
            if (!it.value().is_null())
                out[QString::fromStdString(it.key()).normalized(QString::NormalizationForm_C).toStdString()] =
                        normalised(it.value());
        }
        return out;
    }
    case json::value_t::array: {
        json out = json::array();
        for (const json &element : value)
            out.push_back(normalised(element));
        return out;
    }
    case json::value_t::string:
        return fromUtf8String(value.get_ref<const std::string &>())
                .normalized(QString::NormalizationForm_C)
                .toStdString();
    case json::value_t::number_float:
        if (const std::optional<qint64> whole = wholeNumber(value))
            return *whole;
        return value;
    default:
        return value;
    }
}

} // namespace

bool isIdempotencyKeyName(const QString &name)
{
    QString plain = name.toLower();
    plain.remove(u'_');
    plain.remove(u'-');
    return plain == QLatin1String("idempotencykey");
}

QByteArray canonicalArguments(const QString &tool, const json &arguments)
{
    json intent = normalised(arguments);
    if (intent.is_object()) {
        for (auto member = intent.begin(); member != intent.end();) {
            if (isIdempotencyKeyName(QString::fromStdString(member.key())))
                member = intent.erase(member);
            else
                ++member;
        }
    }
    QByteArray out;
    appendNetstring(out, QByteArrayLiteral("verity-intent-arguments-v1"));
    appendNetstring(out, tool.toUtf8());
    appendNetstring(out,
                    QByteArray::fromStdString(intent.dump(-1, ' ', false, json::error_handler_t::replace)));
    return out;
}

WriteKey writeKey(const ToolSpec &tool, const json &arguments, const TicketFacts &ticket)
{
    Expected<QByteArray> canonical = tool.intent.isEmpty()
            ? Expected<QByteArray>(makeError(QStringLiteral("%1 has no intent fields").arg(tool.name)))
            : canonicalIntent(tool, arguments, ticket);
    if (canonical)
        return WriteKey{QString::fromLatin1(sha256Hex(*canonical)), QString()};
    return WriteKey{QString::fromLatin1(sha256Hex(canonicalArguments(tool.name, arguments))),
                    canonical.message()};
}

Expected<std::optional<qint64>> readAmount(const ToolSpec &tool, const nlohmann::json &arguments)
{
    if (tool.amountField.isEmpty() || !arguments.is_object())
        return std::optional<qint64>();
    const auto amount = arguments.find(tool.amountField.toStdString());
    if (amount == arguments.end())
        return std::optional<qint64>();
    const std::optional<qint64> cents = wholeNumber(*amount);
    if (cents && *cents > 0 && *cents <= maxAmountCents)
        return cents;
    return makeError(
            InputErrc::Invalid,
            QStringLiteral("field \"%1\": expected whole cents from 1 to %2, got %3")
                    .arg(tool.amountField)
                    .arg(maxAmountCents)
                    .arg(QString::fromStdString(
                                 amount->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace))
                                 .left(40)));
}

} // namespace verity
