#include "storelocation.h"

#include <QRegularExpression>
#include <QUrl>

namespace verity {

namespace {

const QString uriSchemes[] = {QStringLiteral("postgresql://"), QStringLiteral("postgres://")};

QString passwordRefusal(const QString &where)
{
    return QStringLiteral("%1 holds a password; leave it out and keep it in ~/.pgpass, in PGPASSWORD, or in "
                          "the desktop keychain (a password in a --db value is seen by every user who "
                          "lists the running programs)")
            .arg(where);
}

// One keyword of either form into `target`: the ones Verity shows by name, or a further option.
Expected<void> setKeyword(PostgresTarget &target, const QString &key, const QString &value,
                          const QString &what)
{
    if (key == QLatin1String("password"))
        return makeError(InputErrc::Invalid, passwordRefusal(what));
    if (key == QLatin1String("host")) {
        target.host = value;
    } else if (key == QLatin1String("port")) {
        bool ok = false;
        const int port = value.toInt(&ok);
        if (!ok || port < 1 || port > 65535)
            return makeError(
                    InputErrc::Invalid,
                    QStringLiteral("%1: port \"%2\" is not a port number (1 to 65535)").arg(what, value));
        target.port = port;
    } else if (key == QLatin1String("user")) {
        target.user = value;
    } else if (key == QLatin1String("dbname")) {
        target.database = value;
    } else if (key.isEmpty()) {
        return makeError(InputErrc::Invalid, QStringLiteral("%1: a value without a keyword").arg(what));
    } else {
        target.options.append({key, value});
    }
    return {};
}

Expected<PostgresTarget> parseUri(const QString &location, const QString &scheme)
{
    PostgresTarget target;
    QString rest = location.mid(scheme.size());
    QString query;
    if (const qsizetype mark = rest.indexOf(u'?'); mark >= 0) {
        query = rest.mid(mark + 1);
        rest.truncate(mark);
    }
    QString authority = rest;
    if (const qsizetype slash = rest.indexOf(u'/'); slash >= 0) {
        authority = rest.left(slash);
        target.database = QUrl::fromPercentEncoding(rest.mid(slash + 1).toUtf8());
    }
    if (const qsizetype at = authority.lastIndexOf(u'@'); at >= 0) {
        const QString userInfo = authority.left(at);
        if (userInfo.contains(u':'))
            return makeError(InputErrc::Invalid, passwordRefusal(QStringLiteral("the --db URI")));
        target.user = QUrl::fromPercentEncoding(userInfo.toUtf8());
        authority = authority.mid(at + 1);
    }
    QString host = authority;
    QString port;
    if (host.startsWith(u'[')) {
        const qsizetype close = host.indexOf(u']');
        if (close < 0)
            return makeError(InputErrc::Invalid,
                             QStringLiteral("the --db URI: \"%1\" opens an IPv6 address with [ and never "
                                            "closes it with ]")
                                     .arg(authority));
        port = host.mid(close + 1).startsWith(u':') ? host.mid(close + 2) : QString();
        host = host.mid(1, close - 1);
    } else if (const qsizetype colon = host.lastIndexOf(u':'); colon >= 0) {
        port = host.mid(colon + 1);
        host.truncate(colon);
    }
    target.host = QUrl::fromPercentEncoding(host.toUtf8());
    if (!port.isEmpty()) {
        if (Expected<void> set =
                    setKeyword(target, QStringLiteral("port"), port, QStringLiteral("the --db URI"));
            !set)
            return set.error();
    }
    for (const QString &pair : query.split(u'&', Qt::SkipEmptyParts)) {
        const qsizetype equals = pair.indexOf(u'=');
        if (equals < 0)
            return makeError(InputErrc::Invalid,
                             QStringLiteral("the --db URI: parameter \"%1\" has no value (expected "
                                            "name=value)")
                                     .arg(pair));
        const QString key = QUrl::fromPercentEncoding(pair.left(equals).toUtf8());
        const QString value = QUrl::fromPercentEncoding(pair.mid(equals + 1).toUtf8());
        if (Expected<void> set = setKeyword(target, key, value, QStringLiteral("the --db URI")); !set)
            return set.error();
    }
    if (target.database.isEmpty())
        return makeError(
                InputErrc::Invalid,
                QStringLiteral("the --db URI names no database: expected %1[user@]host[:port]/dbname")
                        .arg(scheme));
    return target;
}

// libpq's keyword form: key = value pairs, a value in single quotes when it holds spaces, with
// \' and \\ inside them.
Expected<PostgresTarget> parseKeywords(const QString &location)
{
    PostgresTarget target;
    const QString what = QStringLiteral("the --db connection string");
    qsizetype i = 0;
    const qsizetype n = location.size();
    auto skipSpace = [&] {
        while (i < n && location.at(i).isSpace())
            ++i;
    };
    while (true) {
        skipSpace();
        if (i >= n)
            break;
        const qsizetype keyStart = i;
        while (i < n && !location.at(i).isSpace() && location.at(i) != u'=')
            ++i;
        const QString key = location.mid(keyStart, i - keyStart);
        skipSpace();
        if (i >= n || location.at(i) != u'=')
            return makeError(InputErrc::Invalid,
                             QStringLiteral("%1: \"%2\" has no value (expected keyword=value pairs, as in "
                                            "\"host=db.example dbname=verity\")")
                                     .arg(what, key));
        ++i;
        skipSpace();
        QString value;
        if (i < n && location.at(i) == u'\'') {
            ++i;
            bool closed = false;
            while (i < n) {
                const QChar c = location.at(i++);
                if (c == u'\\' && i < n) {
                    value += location.at(i++);
                } else if (c == u'\'') {
                    closed = true;
                    break;
                } else {
                    value += c;
                }
            }
            if (!closed)
                return makeError(InputErrc::Invalid,
                                 QStringLiteral("%1: the value of %2 opens a quote and never closes it")
                                         .arg(what, key));
        } else {
            while (i < n && !location.at(i).isSpace())
                value += location.at(i++);
        }
        if (Expected<void> set = setKeyword(target, key, value, what); !set)
            return set.error();
    }
    if (target.database.isEmpty())
        return makeError(InputErrc::Invalid,
                         QStringLiteral("%1 names no database: expected dbname=NAME").arg(what));
    return target;
}

} // namespace

QString PostgresTarget::display() const
{
    // A socket folder cannot stand where a host name does: it goes in the query, as libpq allows.
    const bool socketFolder = host.startsWith(u'/');
    QString text = QStringLiteral("postgresql://");
    if (!user.isEmpty())
        text += QString::fromUtf8(QUrl::toPercentEncoding(user)) + u'@';
    if (!socketFolder)
        text += host.contains(u':') ? u'[' + host + u']' : host;
    if (port > 0)
        text += u':' + QString::number(port);
    text += u'/' + QString::fromUtf8(QUrl::toPercentEncoding(database));
    QStringList query;
    if (socketFolder)
        query << QStringLiteral("host=") + host;
    for (const auto &[key, value] : options)
        query << key + u'=' + QString::fromUtf8(QUrl::toPercentEncoding(value));
    if (!query.isEmpty())
        text += u'?' + query.join(u'&');
    return text;
}

bool isPostgresLocation(const QString &location)
{
    for (const QString &scheme : uriSchemes) {
        if (location.startsWith(scheme, Qt::CaseInsensitive))
            return true;
    }
    // A keyword string starts with one of libpq's keywords and "=": a file name hardly does.
    static const QRegularExpression keyword(QStringLiteral(
            "^\\s*(host|hostaddr|port|user|dbname|service|sslmode|connect_timeout|application_name)\\s*="));
    return keyword.match(location).hasMatch();
}

Expected<PostgresTarget> parsePostgresLocation(const QString &location)
{
    for (const QString &scheme : uriSchemes) {
        if (location.startsWith(scheme, Qt::CaseInsensitive))
            return parseUri(location, scheme);
    }
    return parseKeywords(location);
}

} // namespace verity
