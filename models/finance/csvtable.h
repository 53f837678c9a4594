#pragma once
// A small RFC 4180 CSV reader and writer: UTF-8 (a leading byte-order mark is skipped), CRLF
// or LF line ends, fields quoted with '"' where they hold a comma, a quote ('""') or a line
// break.

#include "domain/expected.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

namespace verity {

struct CsvRecord
{
    qint64 line = 0; // 1-based line of the file where the record starts
    QStringList fields;
    QString text; // the record as it stands in the file, without its line end
};

enum class CsvHeader { None, FirstRecord };

// Every record of the file, blank lines left out. Errors name `name:line` (an unterminated
// quote, text after a closing quote, bytes that are not UTF-8) and the field: by its column's
// name when the first record is a header, else by its number.
Expected<QList<CsvRecord>> parseCsv(const QByteArray &bytes, const QString &name,
                                    CsvHeader header = CsvHeader::None);

// One field, quoted when it must be, and guarded against formula injection: a spreadsheet
// runs text that starts with = + @ or - as a formula, so such text gets a leading
// apostrophe. A negative amount and nothing else ("-118.00", "-$47.00") is left alone; "-1+A1"
// is guarded.
QString csvField(const QString &value);
// The fields as one line, UTF-8, ended with CRLF as RFC 4180 asks.
QByteArray csvLine(const QStringList &fields);

} // namespace verity
