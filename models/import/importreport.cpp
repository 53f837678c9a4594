#include "importreport.h"

#include "domain/money.h"
#include "transcriptformat.h"

namespace verity {

namespace {

QString message(const QString &path, const ImportProblem &problem)
{
    const QString where = problem.place.line > 0 ? QStringLiteral("%1:%2: ").arg(path).arg(problem.place.line)
                                                 : QStringLiteral("%1: %2: ").arg(path, problem.place.text());
    const QString about = problem.conversation.isEmpty()
            ? QString()
            : QStringLiteral("conversation \"%1\": ").arg(problem.conversation);
    return where + about + problem.reason;
}

QString counted(qint64 count, const char *one, const char *many)
{
    return QStringLiteral("%1 %2").arg(count).arg(QString::fromUtf8(count == 1 ? one : many));
}

} // namespace

QStringList ImportReport::rejectionMessages() const
{
    QStringList messages;
    for (const ImportProblem &problem : rejected)
        messages << message(path, problem);
    return messages;
}

QStringList ImportReport::noticeMessages() const
{
    QStringList messages;
    for (const ImportProblem &problem : notices)
        messages << message(path, problem);
    return messages;
}

QString ImportReport::repeatSummary() const
{
    QStringList parts;
    if (repeats.duplicateEffects > 0) {
        QString part = counted(repeats.duplicateEffects, "duplicate effect", "duplicate effects");
        if (repeats.duplicateCents > 0)
            part += QStringLiteral(" (%1 paid twice)")
                            .arg(formatMoney(repeats.duplicateCents, QStringLiteral("USD")));
        parts << part;
    }
    if (repeats.retries > 0)
        parts << counted(repeats.retries, "retry after an error", "retries after errors");
    if (repeats.unsettled > 0)
        parts << counted(repeats.unsettled, "repeat after success with an unknown outcome",
                         "repeats after success with unknown outcomes");
    if (repeats.harmless > 0)
        parts << counted(repeats.harmless, "harmless repeat", "harmless repeats");
    return parts.join(QStringLiteral(", "));
}

QString ImportReport::summary() const
{
    QString text = path;
    if (!format.isEmpty()) {
        text += QStringLiteral(" (%1").arg(transcriptFormatName(format));
        if (!registries.isEmpty())
            text += QStringLiteral(", registry %1").arg(registries.join(QStringLiteral(", ")));
        text += u')';
    }
    text += QStringLiteral(": ");
    QStringList parts;
    if (linesRead > 0)
        parts << counted(linesRead, "line", "lines");
    if (conversations > 0)
        parts << counted(conversations, "conversation", "conversations");
    parts << counted(ticketsOpened, "ticket opened", "tickets opened")
          << counted(eventsImported, "event imported", "events imported")
          << QStringLiteral("%1 already present, %2 rejected").arg(eventsUnchanged).arg(rejected.size());
    text += parts.join(QStringLiteral(", "));
    const QString repeatText = repeatSummary();
    if (!repeatText.isEmpty())
        text += QStringLiteral("; ") + repeatText;
    if (!unclassifiedTools.isEmpty())
        text += QStringLiteral("; tools no registry knows: ") + unclassifiedTools.join(QStringLiteral(", "));
    if (cancelled)
        text += QStringLiteral(
                "; cancelled: what was read before the stop is kept, import the file again to finish");
    if (!fatal.isEmpty())
        text += QStringLiteral("; stopped: ") + fatal;
    return text;
}

} // namespace verity
