#include "driverchatter.h"

#include <QtGlobal>

#include <cstdio>
#include <cstring>

namespace verity {

namespace {

QtMessageHandler g_next = nullptr;

void handle(QtMsgType type, const QMessageLogContext &context, const QString &message)
{
    if (type == QtWarningMsg && isDriverChatter(context.category, message))
        return;
    if (g_next)
        g_next(type, context, message);
    else
        std::fprintf(stderr, "%s\n", qPrintable(qFormatLogMessage(type, context, message)));
}

} // namespace

bool isDriverChatter(const char *category, const QString &message)
{
    if (category && std::strncmp(category, "qt.sql", 6) == 0)
        return true;
    static const char *const said[] = {
            "QSqlQuery::",
            "QSqlDatabase",
            "Unable to free statement",
            "QPSQL",
            "QSocketNotifier: Invalid socket",
            "FATAL:",
            "server closed the connection",
    };
    const QString text = message.trimmed();
    for (const char *start : said) {
        if (text.startsWith(QLatin1String(start)))
            return true;
    }
    return false;
}

void quietDriverChatter()
{
    g_next = qInstallMessageHandler(handle);
}

} // namespace verity
