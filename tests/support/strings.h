#pragma once
// Lists of text written as plain literals in test tables: the project forbids the implicit
// conversion from char *, and a QStringList of QStringLiteral items reads poorly in a row.

#include <QString>
#include <QStringList>

#include <initializer_list>

namespace verity::test {

// {"a", "b"} as a QStringList, each item read as UTF-8.
inline QStringList strings(std::initializer_list<const char *> items)
{
    QStringList list;
    for (const char *item : items)
        list.append(QString::fromUtf8(item));
    return list;
}

} // namespace verity::test
