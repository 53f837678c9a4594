#include "toolclasssuggestion.h"

#include "jsontext.h"
#include "toolhint.h"

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

// How well a whole-number argument's name says it is the amount moved: "amount_cents" best, then
// any "…_cents", then "amount"; a fee or a shipping charge beside them is not the amount.
int amountRank(const QString &name)
{
    const QStringList words = nameWords(name);
    const bool cents = words.contains(QStringLiteral("cents"));
    const bool amount = words.contains(QStringLiteral("amount")) || words.contains(QStringLiteral("refund"))
            || words.contains(QStringLiteral("payout"));
    return (cents ? 2 : 0) + (amount ? 1 : 0);
}

// Keeps the better amount of two: the first one met on a tie.
void preferAmount(QString &chosen, const QString &candidate)
{
    if (chosen.isEmpty() || amountRank(candidate) > amountRank(chosen))
        chosen = candidate;
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
    // "45.99", "-3", and as people write money: "$45.99", "1,250.00 ".
    static const QRegularExpression decimal(
            QStringLiteral("^\\s*[$\u20ac\u00a3]?\\s*-?[0-9][0-9,]*(\\.[0-9]+)?\\s*$"));
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
            if (wholeNumber)
                preferAmount(amountField, name);
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

namespace {

QStringList lowerWords(const QString &text)
{
    static const QRegularExpression separators(QStringLiteral("[^a-z]+"));
    return text.toLower().split(separators, Qt::SkipEmptyParts);
}

// Verbs that also write ("Return the order", "Check out and charge") are no verbs of reading;
// "Returns the order…", "Checks a refund…" describe a read.
bool opensWithReadVerb(const QStringList &words)
{
    if (words.size() >= 2 && words.first() == u"check" && words.at(1) == u"out")
        return false;
    static const QSet<QString> readVerbs{
            QStringLiteral("get"),       QStringLiteral("gets"),       QStringLiteral("look"),
            QStringLiteral("looks"),     QStringLiteral("lookup"),     QStringLiteral("fetch"),
            QStringLiteral("fetches"),   QStringLiteral("list"),       QStringLiteral("lists"),
            QStringLiteral("search"),    QStringLiteral("searches"),   QStringLiteral("find"),
            QStringLiteral("finds"),     QStringLiteral("show"),       QStringLiteral("shows"),
            QStringLiteral("read"),      QStringLiteral("reads"),      QStringLiteral("retrieve"),
            QStringLiteral("retrieves"), QStringLiteral("view"),       QStringLiteral("query"),
            QStringLiteral("queries"),   QStringLiteral("describe"),   QStringLiteral("describes"),
            QStringLiteral("calculate"), QStringLiteral("calculates"), QStringLiteral("estimate"),
            QStringLiteral("estimates"), QStringLiteral("preview"),    QStringLiteral("returns"),
            QStringLiteral("check"),     QStringLiteral("checks"),     QStringLiteral("calc"),
            QStringLiteral("compute"),   QStringLiteral("computes"),   QStringLiteral("verify"),
            QStringLiteral("validate")};
    return !words.isEmpty() && readVerbs.contains(words.first());
}

// Whether a tool's description (or name) says it moves money: a money word, in a text that does
// not open with a verb of reading ("Look up a refund" reads one; "Refund an order" makes one).
bool describesMoneyMoved(const QString &description)
{
    const QStringList words = lowerWords(description);
    static const QSet<QString> moneyWords{
            QStringLiteral("refund"),      QStringLiteral("refunds"),      QStringLiteral("pay"),
            QStringLiteral("pays"),        QStringLiteral("payout"),       QStringLiteral("payouts"),
            QStringLiteral("charge"),      QStringLiteral("charges"),      QStringLiteral("transfer"),
            QStringLiteral("transfers"),   QStringLiteral("money"),        QStringLiteral("compensate"),
            QStringLiteral("compensates"), QStringLiteral("compensation"), QStringLiteral("reimburse"),
            QStringLiteral("reimburses"),  QStringLiteral("payment"),      QStringLiteral("payments"),
            QStringLiteral("credit"),      QStringLiteral("credits")};
    if (words.isEmpty() || opensWithReadVerb(words))
        return false;
    return std::any_of(words.cbegin(), words.cend(),
                       [](const QString &word) { return moneyWords.contains(word); });
}

// A name that says what it reads: "refund_status", "payment_lookup", "refund_eligibility".
bool namesWhatItReads(const QStringList &words)
{
    static const QSet<QString> readNouns{
            QStringLiteral("status"),   QStringLiteral("lookup"),  QStringLiteral("eligibility"),
            QStringLiteral("history"),  QStringLiteral("details"), QStringLiteral("detail"),
            QStringLiteral("info"),     QStringLiteral("balance"), QStringLiteral("quote"),
            QStringLiteral("estimate"), QStringLiteral("preview"), QStringLiteral("search")};
    return opensWithReadVerb(words) || std::any_of(words.cbegin(), words.cend(), [](const QString &word) {
               return readNouns.contains(word);
           });
}

// The schema's arguments that say money and are numbers (or of no stated type); the whole-cents
// one, if any, as the amount.
ToolClassSuggestion moneyBySchema(const ToolHint &hint)
{
    ToolClassSuggestion suggestion;
    QStringList money;
    for (const auto &[name, type] : hint.parameters) {
        const bool number = type.isEmpty() || type == u"integer" || type == u"number";
        if (!isMoneyName(name) || !number)
            continue;
        money.append(name);
        if (type == u"integer")
            preferAmount(suggestion.amountField, name);
    }
    if (money.isEmpty())
        return suggestion;
    suggestion.toolClass = ToolClass::WriteMoney;
    suggestion.reason = QStringLiteral("its definition in %1 names %2, which %3 like money")
                                .arg(hint.source, money.join(QStringLiteral(", ")),
                                     money.size() == 1 ? QStringLiteral("looks") : QStringLiteral("look"));
    return suggestion;
}

ToolClassSuggestion hinted(ToolClass toolClass, const QString &reason)
{
    ToolClassSuggestion suggestion;
    suggestion.toolClass = toolClass;
    suggestion.reason = reason;
    return suggestion;
}

} // namespace

ToolClassSuggestion inferToolClass(const QString &tool, const ToolHint *hint, const QString &arguments,
                                   const QString &result)
{
    ToolClassSuggestion byCall = suggestToolClass(arguments, result);
    if (!byCall.reason.isEmpty())
        byCall.reason = QStringLiteral("in its call, ") + byCall.reason;
    // A tool its server marks read-only and whose own words say it reads ("search_orders",
    // "Get a refund's status") reads, whatever money its filters name (min_total).
    const bool declaredRead = hint && hint->readOnly == true
            && (opensWithReadVerb(lowerWords(hint->description)) || namesWhatItReads(nameWords(tool)));
    if (declaredRead)
        return hinted(ToolClass::Read,
                      QStringLiteral("its MCP server (in %1) marks it read-only (readOnlyHint), "
                                     "and its name or description says it reads")
                              .arg(hint->source));
    // Money first, from whatever says it: a read-only hint never hides a refund.
    if (hint) {
        if (ToolClassSuggestion money = moneyBySchema(*hint); money.toolClass) {
            if (money.amountField.isEmpty())
                money.amountField = byCall.amountField;
            return money;
        }
    }
    if (byCall.toolClass == ToolClass::WriteMoney)
        return byCall;
    if (hint && describesMoneyMoved(hint->description))
        return hinted(ToolClass::WriteMoney,
                      QStringLiteral("its description in %1 says it moves money: \"%2\"")
                              .arg(hint->source, hint->description.left(160)));
    const QString mcp = hint ? QStringLiteral("its MCP server (in %1)").arg(hint->source) : QString();
    if (hint && hint->readOnly == true)
        return hinted(ToolClass::Read, mcp + QStringLiteral(" marks it read-only (readOnlyHint)"));
    // A name is a weaker clue than a description: "refund_status", described "Look up a refund's
    // status", reads.
    const bool describedAsRead = hint && opensWithReadVerb(lowerWords(hint->description));
    if (!describedAsRead && !namesWhatItReads(nameWords(tool))
        && describesMoneyMoved(nameWords(tool).join(u' ')))
        return hinted(ToolClass::WriteMoney, QStringLiteral("its name says it moves money"));
    if (!hint)
        return byCall;
    if (hint->destructive == true)
        return hinted(ToolClass::WriteIrreversible,
                      mcp + QStringLiteral(" marks it destructive (destructiveHint)"));
    if (hint->idempotent == true)
        return hinted(ToolClass::WriteWasteful,
                      mcp + QStringLiteral(" marks it idempotent (idempotentHint): a repeat adds no effect"));
    if (hint->readOnly == false && !byCall.toolClass)
        return hinted(ToolClass::WriteCostly,
                      mcp + QStringLiteral(" says it changes something (readOnlyHint false), not how much"));
    return byCall;
}

} // namespace verity
