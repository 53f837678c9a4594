#include "finance/csvtable.h"

#include <QRegularExpression>
#include <QStringDecoder>

namespace verity {

namespace {

bool endsField(QChar c)
{
    return c == u',' || c == u'\r' || c == u'\n';
}

// The 1-based line holding the first bytes that are not UTF-8, if any. UTF-8 never puts a
// '\n' byte inside a character, so each line can be checked on its own.
std::optional<qint64> firstLineNotUtf8(const QByteArray &bytes)
{
    qint64 line = 1;
    for (const QByteArray &text : bytes.split('\n')) {
        // Stateless: a character cut off at the end of the line is an error, not kept for later.
        QStringDecoder decoder(QStringDecoder::Utf8, QStringDecoder::Flag::Stateless);
        const QString decoded = decoder.decode(text);
        if (decoder.hasError())
            return line;
        ++line;
    }
    return std::nullopt;
}

// How a message names the field at `index` (0-based): by its column's name once the header
// is read, else by its number.
QString fieldName(const QList<CsvRecord> &records, CsvHeader header, qsizetype index)
{
    if (header == CsvHeader::FirstRecord && !records.isEmpty() && index < records.constFirst().fields.size())
        return QStringLiteral("column \"%1\"").arg(records.constFirst().fields.at(index).trimmed());
    return QStringLiteral("field %1").arg(index + 1);
}

} // namespace

Expected<QList<CsvRecord>> parseCsv(const QByteArray &bytes, const QString &name, CsvHeader header)
{
    if (const std::optional<qint64> bad = firstLineNotUtf8(bytes))
        return makeError(
                QStringLiteral("%1:%2: the text is not UTF-8; save the file as UTF-8").arg(name).arg(*bad));
    QString text = QString::fromUtf8(bytes);
    if (text.startsWith(QChar(0xFEFF)))
        text.remove(0, 1);

    QList<CsvRecord> records;
    const qsizetype size = text.size();
    qsizetype i = 0;
    qint64 line = 1;
    while (i < size) {
        CsvRecord record;
        record.line = line;
        const qsizetype start = i;
        for (;;) {
            QString field;
            if (i < size && text.at(i) == u'"') {
                const qint64 quoteLine = line;
                ++i;
                for (;;) {
                    if (i >= size) {
                        return makeError(
                                QStringLiteral(
                                        "%1:%2: %3 opens a quote that never closes; expected a "
                                        "closing '\"' (a quote inside a quoted field is written '\"\"')")
                                        .arg(name)
                                        .arg(quoteLine)
                                        .arg(fieldName(records, header, record.fields.size())));
                    }
                    const QChar c = text.at(i);
                    if (c == u'"') {
                        if (i + 1 < size && text.at(i + 1) == u'"') {
                            field += u'"';
                            i += 2;
                            continue;
                        }
                        ++i;
                        break;
                    }
                    // A line break inside quotes is part of the field, and still a line of the file.
                    if (c == u'\n' || (c == u'\r' && (i + 1 >= size || text.at(i + 1) != u'\n')))
                        ++line;
                    field += c;
                    ++i;
                }
                if (i < size && !endsField(text.at(i))) {
                    return makeError(
                            QStringLiteral("%1:%2: %3: found \"%4\" after its closing quote; expected a "
                                           "comma or the end of the line")
                                    .arg(name)
                                    .arg(line)
                                    .arg(fieldName(records, header, record.fields.size()))
                                    .arg(text.at(i)));
                }
            } else {
                while (i < size && !endsField(text.at(i)))
                    field += text.at(i++);
            }
            record.fields.append(field);
            if (i < size && text.at(i) == u',') {
                ++i;
                continue;
            }
            break;
        }
        record.text = text.mid(start, i - start);
        // CRLF, LF, or a lone CR ends the record.
        if (i < size && text.at(i) == u'\r')
            ++i;
        if (i < size && text.at(i) == u'\n')
            ++i;
        ++line;
        if (!record.text.isEmpty()) // a blank line is no record
            records.append(record);
    }
    return records;
}

QString csvField(const QString &value)
{
    QString field = value;
    if (!field.isEmpty()) {
        // A negative amount, plain or formatted ("-118.00", "-$47.00"), or a lone "-" is a value.
        static const QRegularExpression amount(QStringLiteral("^-([$\u20ac\u00a3]?[0-9][0-9,.]*)?$"));
        const QChar first = field.at(0);
        const bool formula = first == u'=' || first == u'+' || first == u'@'
                || (first == u'-' && !amount.match(field).hasMatch());
        if (formula)
            field.prepend(u'\'');
    }
    if (field.contains(u',') || field.contains(u'"') || field.contains(u'\r') || field.contains(u'\n')) {
        field.replace(QStringLiteral("\""), QStringLiteral("\"\""));
        field = u'"' + field + u'"';
    }
    return field;
}

QByteArray csvLine(const QStringList &fields)
{
    QStringList written;
    written.reserve(fields.size());
    for (const QString &field : fields)
        written.append(csvField(field));
    return written.join(u',').toUtf8() + "\r\n";
}

} // namespace verity
