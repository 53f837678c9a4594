#include "finance/providerexport.h"

#include "domain/timestamp.h"
#include "finance/csvtable.h"

#include <QDateTime>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QRegularExpression>

#include <algorithm>
#include <array>

namespace verity {

namespace {

enum Field { Id, Amount, Currency, Created, PaymentIntent, Status, IntentKey, TicketId, Account, FieldCount };

struct FieldSpec
{
    QStringList names; // matched in any letter case; the first is the one messages name
    bool required;
};

const std::array<FieldSpec, FieldCount> &fieldSpecs()
{
    static const std::array<FieldSpec, FieldCount> specs = {{
            {{QStringLiteral("id")}, true},
            {{QStringLiteral("amount")}, true},
            {{QStringLiteral("currency")}, true},
            {{QStringLiteral("created"), QStringLiteral("Created (UTC)")}, true},
            {{QStringLiteral("payment_intent"), QStringLiteral("Payment Intent")}, true},
            {{QStringLiteral("status")}, false},
            {{QStringLiteral("intent_key"), QStringLiteral("metadata[intent_key]"),
              QStringLiteral("intent_key (metadata)")},
             false},
            {{QStringLiteral("ticket_id"), QStringLiteral("metadata[ticket_id]"),
              QStringLiteral("ticket_id (metadata)")},
             false},
            {{QStringLiteral("account")}, false},
    }};
    return specs;
}

// Where each field stands in a line, and the header's own spelling of it for messages.
struct Columns
{
    std::array<qsizetype, FieldCount> index;
    QStringList header;
    Columns() { index.fill(-1); }
    bool has(Field field) const { return index[field] >= 0; }
    QString name(Field field) const { return header.at(index[field]); }
};

Expected<Columns> readHeader(const CsvRecord &record, const QString &name)
{
    Columns columns;
    for (const QString &column : record.fields)
        columns.header.append(column.trimmed());
    const auto &specs = fieldSpecs();
    for (qsizetype i = 0; i < columns.header.size(); ++i) {
        const QString key = columns.header.at(i).simplified();
        for (int field = 0; field < FieldCount; ++field) {
            if (!specs[size_t(field)].names.contains(key, Qt::CaseInsensitive))
                continue;
            if (columns.index[size_t(field)] >= 0) {
                return makeError(
                        QStringLiteral("%1:%2: columns \"%3\" and \"%4\" both give %5; keep one of them")
                                .arg(name)
                                .arg(record.line)
                                .arg(columns.header.at(columns.index[size_t(field)]), columns.header.at(i),
                                     specs[size_t(field)].names.first()));
            }
            columns.index[size_t(field)] = i;
        }
    }
    QStringList missing;
    for (int field = 0; field < FieldCount; ++field) {
        const FieldSpec &spec = specs[size_t(field)];
        if (!spec.required || columns.index[size_t(field)] >= 0)
            continue;
        QString text = u'"' + spec.names.first() + u'"';
        if (spec.names.size() > 1)
            text += QStringLiteral(" (or \"%1\")").arg(spec.names.mid(1).join(QStringLiteral("\", \"")));
        missing.append(text);
    }
    if (!missing.isEmpty()) {
        return makeError(QStringLiteral("%1:%2: missing column%3 %4; the header has: %5")
                                 .arg(name)
                                 .arg(record.line)
                                 .arg(missing.size() > 1 ? QStringLiteral("s") : QString(),
                                      missing.join(QStringLiteral(", ")),
                                      columns.header.join(QStringLiteral(", "))));
    }
    return columns;
}

// "118.00", "-118.00", "118.5", "118": the magnitude in cents, without floating point.
std::optional<qint64> amountCents(const QString &text)
{
    static const QRegularExpression shape(QStringLiteral("^-?([0-9]{1,12})(?:\\.([0-9]{1,2}))?$"));
    const QRegularExpressionMatch match = shape.match(text);
    if (!match.hasMatch())
        return std::nullopt;
    const qint64 whole = match.captured(1).toLongLong();
    const QString fraction = match.captured(2).leftJustified(2, u'0');
    return whole * 100 + fraction.toLongLong();
}

// Unix seconds, or the importer's ISO 8601 reading (a time without a zone is UTC), which also
// takes Stripe's dashboard form without seconds ("2026-03-17 14:32").
std::optional<qint64> createdMs(const QString &text)
{
    // Ten digits: unix seconds from 2001 to 2286. Fewer is more likely a date without dashes
    // ("20260317"), which must be refused rather than read as 1970 and left out of the period.
    static const QRegularExpression seconds(QStringLiteral("^[0-9]{10}$"));
    if (seconds.match(text).hasMatch())
        return text.toLongLong() * 1000;
    static const QRegularExpression withoutSeconds(
            QStringLiteral("^[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}$"));
    return parseLooseTimestamp(withoutSeconds.match(text).hasMatch() ? text + QStringLiteral(":00") : text);
}

// One line of the export as a refund; the error names the column and what was expected.
Expected<StatementRefund> refundFrom(const CsvRecord &record, const Columns &columns, const QString &name,
                                     const QString &ledgerCurrency)
{
    const auto where = [&](Field field) {
        return QStringLiteral("%1:%2: column \"%3\": ").arg(name).arg(record.line).arg(columns.name(field));
    };
    const auto value = [&](Field field) {
        return columns.has(field) ? record.fields.value(columns.index[field]).trimmed() : QString();
    };

    // "<value>" is not <what, and what was expected>.
    const auto refuse = [&](Field field, const QString &what) -> Error {
        return makeError(where(field) + QStringLiteral("\"%1\" is not %2").arg(value(field), what));
    };

    StatementRefund refund;
    refund.id = value(Id);
    if (refund.id.isEmpty())
        return makeError(
                where(Id)
                + QStringLiteral("empty; expected the refund's id, such as re_3MtwBwLkdIwHu7ix28a3tqPa"));

    const std::optional<qint64> cents = amountCents(value(Amount));
    if (!cents)
        return refuse(
                Amount,
                QStringLiteral("an amount; expected a decimal with at most two decimals, such as 118.00"));
    // The magnitude: Stripe's refund export writes a refund as 118.00, its balance export as
    // -118.00, and both mean 11800 cents refunded.
    refund.amountCents = *cents;

    static const QRegularExpression threeLetters(QStringLiteral("^[A-Za-z]{3}$"));
    const QString currency = value(Currency);
    if (!threeLetters.match(currency).hasMatch())
        return refuse(Currency, QStringLiteral("a currency; expected three letters, such as USD"));
    refund.currency = currency.toUpper();
    if (!ledgerCurrency.isEmpty() && refund.currency != ledgerCurrency.toUpper()) {
        return makeError(
                where(Currency)
                + QStringLiteral("\"%1\", but the ledger is in %2").arg(currency, ledgerCurrency.toUpper()));
    }

    const std::optional<qint64> ms = createdMs(value(Created));
    if (!ms) {
        return refuse(Created,
                      QStringLiteral("a time; expected UTC such as 2026-03-17 14:32:07 or "
                                     "2026-03-17T14:32:07Z, or unix seconds (10 digits)"));
    }
    refund.createdMs = *ms;

    refund.paymentIntent = value(PaymentIntent);
    refund.status = value(Status).toLower();
    refund.intentKey = value(IntentKey);
    refund.ticketExtId = value(TicketId);
    refund.account = value(Account);
    refund.origin = QStringLiteral("%1:%2").arg(name).arg(record.line);
    refund.record = record.text;
    return refund;
}

bool isBlank(const CsvRecord &record)
{
    return std::all_of(record.fields.cbegin(), record.fields.cend(),
                       [](const QString &field) { return field.trimmed().isEmpty(); });
}

} // namespace

Expected<ProviderStatement> parseProviderExport(const QByteArray &bytes, const QString &name,
                                                const Period &period, const QString &currency)
{
    Expected<QList<CsvRecord>> records = parseCsv(bytes, name, CsvHeader::FirstRecord);
    if (!records)
        return records.error();
    if (records->isEmpty())
        return makeError(QStringLiteral("%1: empty file").arg(name));
    Expected<Columns> columns = readHeader(records->first(), name);
    if (!columns)
        return columns.error();

    ProviderStatement statement;
    statement.period = period;
    statement.source = name;
    statement.fetchedAt = QDateTime::currentMSecsSinceEpoch();
    QHash<QString, qint64> lineOfId;
    QString ledgerCurrency = currency.toUpper(); // empty: the first refund's, for the whole file
    const qsizetype columnCount = columns->header.size();
    for (qsizetype i = 1; i < records->size(); ++i) {
        const CsvRecord &record = records->at(i);
        // A spreadsheet saves an emptied row as ",,,": no refund, and no error.
        if (isBlank(record))
            continue;
        if (record.fields.size() < columnCount) {
            return makeError(
                    QStringLiteral(
                            "%1:%2: column \"%3\": missing; the line has %4 fields where the header has %5")
                            .arg(name)
                            .arg(record.line)
                            .arg(columns->header.at(record.fields.size()))
                            .arg(record.fields.size())
                            .arg(columnCount));
        }
        if (record.fields.size() > columnCount) {
            return makeError(
                    QStringLiteral(
                            "%1:%2: field %3 has no column; the line has %4 fields where the header has "
                            "%5")
                            .arg(name)
                            .arg(record.line)
                            .arg(columnCount + 1)
                            .arg(record.fields.size())
                            .arg(columnCount));
        }
        Expected<StatementRefund> refund = refundFrom(record, *columns, name, ledgerCurrency);
        if (!refund)
            return refund.error();
        if (ledgerCurrency.isEmpty())
            ledgerCurrency = refund->currency;
        if (const auto first = lineOfId.constFind(refund->id); first != lineOfId.cend()) {
            return makeError(QStringLiteral("%1:%2: column \"%3\": \"%4\" is listed twice (first on line %5)")
                                     .arg(name)
                                     .arg(record.line)
                                     .arg(columns->name(Id), refund->id)
                                     .arg(*first));
        }
        lineOfId.insert(refund->id, record.line);
        // Every line is checked; only those of the period are kept.
        if (period.contains(refund->createdMs))
            statement.refunds.append(*refund);
    }
    std::stable_sort(
            statement.refunds.begin(), statement.refunds.end(),
            [](const StatementRefund &a, const StatementRefund &b) { return a.createdMs < b.createdMs; });
    return statement;
}

Expected<ProviderStatement> readProviderExport(const QString &path, const Period &period,
                                               const QString &currency)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return makeError(QStringLiteral("%1: cannot read the export: %2").arg(path, file.errorString()));
    Expected<ProviderStatement> statement =
            parseProviderExport(file.readAll(), QFileInfo(path).fileName(), period, currency);
    if (statement)
        statement->source = path;
    return statement;
}

} // namespace verity
