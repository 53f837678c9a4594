#include "postgresconnection.h"

#include <QSqlDriver>
#include <QVariant>

namespace verity {

PGconn *libpqConnection(const QSqlDatabase &db)
{
    // The driver names the handle's type as the compiler spelt it: PGconn is struct pg_conn.
    const QVariant handle = db.driver()->handle();
    const QByteArray type = handle.isValid() ? QByteArray(handle.typeName()) : QByteArray();
    return type == "PGconn*" || type == "pg_conn*" ? *static_cast<PGconn *const *>(handle.constData())
                                                   : nullptr;
}

QSqlError serverError(PGconn *connection, const PGresult *result)
{
    const char *code = result ? PQresultErrorField(result, PG_DIAG_SQLSTATE) : nullptr;
    const char *text = result ? PQresultErrorMessage(result) : nullptr;
    const QString said = QString::fromUtf8(text && *text ? text : PQerrorMessage(connection)).trimmed();
    return QSqlError(QString(), said, QSqlError::StatementError, QString::fromLatin1(code ? code : ""));
}

PgResult runWithArrays(PGconn *connection, const char *sql, const QList<QByteArray> &arrays)
{
    QList<const char *> values;
    for (const QByteArray &array : arrays)
        values.append(array.constData());
    return PgResult(PQexecParams(connection, sql, int(values.size()), nullptr, values.constData(), nullptr,
                                 nullptr, 0));
}

} // namespace verity
