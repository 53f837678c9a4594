#include "toolclasssuggestion.h"

#include "jsontext.h"

#include <QRegularExpression>
#include <QSet>

namespace verity {

using nlohmann::json;

namespace {

// "refundAmount_cents" -> refund, amount, cents
QStringList nameWords(const QString &name)
{
    static const QRegularExpression camel(QStringLiteral("([a-z0-9])([A-Z])"));
    static const QRegularExpression separators(QStringLiteral("[^A-Za-z0-9]+"));
    QString spaced = name;
    spaced.replace(camel, QStringLiteral("\\1 \\2"));
    return spaced.toLower().split(separators, Qt::SkipEmptyParts);
}

// The object in `text`; also when it is a JSON string holding one, as a chat transcript's tool
// message stores its content.
json parseObject(const QString &text)
{
    if (text.trimmed().isEmpty())
        return json();
    json parsed = json::parse(text.toStdString(), nullptr, false);
    if (parsed.is_string())
        parsed = json::parse(parsed.get_ref<const std::string &>(), nullptr, false);
    return parsed.is_object() ? parsed : json();
}

bool isNumeric(const json &value)
{
    if (value.is_number())
        return true;
    if (!value.is_string())
        return false;
    static const QRegularExpression decimal(QStringLiteral("^\\s*-?[0-9]+(\\.[0-9]+)?\\s*$"));
    return decimal.match(fromUtf8String(value.get_ref<const std::string &>())).hasMatch();
}

QString scalarText(const json &value)
{
    if (value.is_string())
        return fromUtf8String(value.get_ref<const std::string &>());
    if (value.is_number_integer())
        return QString::number(value.get<qint64>());
    return {};
}

// Every text and whole number in the arguments, at any depth: an id the call was given.
void collectValues(const json &value, QSet<QString> &values)
{
    if (value.is_structured()) {
        for (const json &item : value)
            collectValues(item, values);
        return;
    }
    const QString text = scalarText(value);
    if (!text.isEmpty())
        values.insert(text);
}

// The first id in the result (at its top level, or one object down: {"refund": {"id": …}})
// whose value the arguments did not hold: something the call made.
QString createdId(const json &result, const QSet<QString> &given)
{
    const auto search = [&given](const json &object) -> QString {
        for (auto it = object.begin(); it != object.end(); ++it) {
            const QString key = fromUtf8String(it.key());
            const QString value = scalarText(it.value());
            if (isIdName(key) && !value.isEmpty() && !given.contains(value))
                return key;
        }
        return {};
    };
    if (const QString top = search(result); !top.isEmpty())
        return top;
    for (auto it = result.begin(); it != result.end(); ++it) {
        if (!it.value().is_object())
            continue;
        if (const QString inner = search(it.value()); !inner.isEmpty())
            return fromUtf8String(it.key()) + u'.' + inner;
    }
    return {};
}

} // namespace

QString readableResult(const QString &rawResult)
{
    const json parsed = json::parse(rawResult.toStdString(), nullptr, false);
    return parsed.is_string() ? fromUtf8String(parsed.get_ref<const std::string &>()) : rawResult;
}

bool isMoneyName(const QString &name)
{
    static const QSet<QString> moneyWords{
            QStringLiteral("amount"),      QStringLiteral("amt"),      QStringLiteral("price"),
            QStringLiteral("total"),       QStringLiteral("subtotal"), QStringLiteral("cost"),
            QStringLiteral("fee"),         QStringLiteral("fees"),     QStringLiteral("cents"),
            QStringLiteral("charge"),      QStringLiteral("refund"),   QStringLiteral("payout"),
            QStringLiteral("compensation")};
    if (isIdName(name)) // "refund_id", "charge_id": an id, however many digits it has
        return false;
    for (const QString &word : nameWords(name)) {
        if (moneyWords.contains(word))
            return true;
    }
    return false;
}

bool isIdName(const QString &name)
{
    const QStringList words = nameWords(name);
    return !words.isEmpty() && words.last() == u"id";
}

ToolClassSuggestion suggestToolClass(const QString &sampleArguments, const QString &sampleResult)
{
    const json arguments = parseObject(sampleArguments);
    const json result = parseObject(sampleResult);

    // Money: every numeric argument whose name says so; whole cents preferred for the amount.
    QStringList money;
    QString amountField;
    if (arguments.is_object()) {
        for (auto it = arguments.begin(); it != arguments.end(); ++it) {
            const QString name = fromUtf8String(it.key());
            if (!isMoneyName(name) || !isNumeric(it.value()))
                continue;
            money.append(name);
            const bool wholeNumber = it.value().is_number_integer();
            if (wholeNumber && (amountField.isEmpty() || nameWords(name).contains(QStringLiteral("cents"))))
                amountField = name;
        }
    }

    QString id;
    if (result.is_object()) {
        QSet<QString> given;
        if (arguments.is_object())
            collectValues(arguments, given);
        id = createdId(result, given);
    }

    ToolClassSuggestion suggestion;
    if (!money.isEmpty()) {
        suggestion.toolClass = ToolClass::WriteMoney;
        suggestion.amountField = amountField;
        suggestion.reason = money.size() == 1
                ? QStringLiteral("%1 looks like money").arg(money.first())
                : QStringLiteral("%1 look like money").arg(money.join(QStringLiteral(", ")));
        if (amountField.isEmpty())
            suggestion.reason += QStringLiteral(", though not in whole cents");
        if (!id.isEmpty())
            suggestion.reason += QStringLiteral(", and its result returns %1").arg(id);
    } else if (!id.isEmpty()) {
        suggestion.toolClass = ToolClass::WriteCostly;
        suggestion.reason =
                QStringLiteral("its result returns %1, which its arguments did not hold: the call made "
                               "something")
                        .arg(id);
    } else {
        suggestion.reason = QStringLiteral("nothing in its arguments or result says what it does");
    }
    return suggestion;
}

} // namespace verity
