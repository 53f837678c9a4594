#include "theme.h"

#include "itemmodels/palette.h"

namespace verity::theme {

namespace {

QString hex(const char *colour)
{
    return QLatin1String(colour);
}

QString bandStyle(const char *background, const char *foreground,
                  const QString &border = QStringLiteral("none"))
{
    return QStringLiteral(
                   "QLabel { border: %1; background: %2; color: %3; padding: 4px; font-weight: bold; }")
            .arg(border, hex(background), hex(foreground));
}

QString frame(const char *background, const QString &border)
{
    return QStringLiteral("QFrame { background: %1; border: %2; border-radius: %3px; }")
            .arg(hex(background), border)
            .arg(cardRadius);
}

} // namespace

QString label(Text role)
{
    switch (role) {
    case Text::Body:
        return QStringLiteral("QLabel { border: none; color: %1; }").arg(hex(palette::text));
    case Text::Muted:
        return QStringLiteral("QLabel { border: none; color: %1; }").arg(hex(palette::mutedText));
    case Text::Caption:
        return QStringLiteral("QLabel { border: none; color: %1; font-size: 8pt; font-weight: bold; }")
                .arg(hex(palette::mutedText));
    case Text::Author:
        return QStringLiteral("QLabel { border: none; font-weight: bold; color: %1; }")
                .arg(hex(palette::text));
    case Text::ToolName:
        return QStringLiteral("QLabel { border: none; font-weight: bold; font-size: 11pt; }");
    case Text::Warning:
        return QStringLiteral("QLabel { border: none; color: %1; }").arg(hex(palette::unknown));
    }
    return {};
}

QString messageText(bool agentNote)
{
    return agentNote ? QStringLiteral("QLabel { border: none; font-style: italic; }")
                     : QStringLiteral("QLabel { border: none; }");
}

QString status(Tone tone, bool bold)
{
    const char *colour = palette::text;
    switch (tone) {
    case Tone::Neutral:
        return QStringLiteral("QLabel { color: %1; }").arg(hex(palette::text));
    case Tone::Good:
        colour = palette::performed;
        break;
    case Tone::Bad:
        colour = palette::duplicate;
        break;
    case Tone::Warning:
        colour = palette::unknown;
        break;
    }
    return bold ? QStringLiteral("QLabel { color: %1; font-weight: bold; }").arg(hex(colour))
                : QStringLiteral("QLabel { color: %1; }").arg(hex(colour));
}

QString statusLink(const QString &href, const QString &text, Tone tone)
{
    const char *colour = tone == Tone::Bad ? palette::duplicate
            : tone == Tone::Warning        ? palette::unknown
            : tone == Tone::Good           ? palette::performed
                                           : palette::text;
    return QStringLiteral("<a href=\"%1\" style=\"color:%2; font-weight:bold;\">%3</a>")
            .arg(href.toHtmlEscaped(), hex(colour), text.toHtmlEscaped());
}

QString band(Band kind)
{
    switch (kind) {
    case Band::Unknown:
        return bandStyle(palette::unknownBackground, palette::unknown);
    case Band::Duplicate:
        return bandStyle(palette::duplicateBackground, palette::duplicate);
    case Band::Performed:
        return bandStyle(palette::performedBackground, palette::performed);
    case Band::NotPerformed:
        return bandStyle(palette::notPerformedBackground, palette::notPerformed);
    case Band::Attested: // a person's check: outlined in dashes, as its badge is
        return bandStyle(palette::notPerformedBackground, palette::notPerformed,
                         QStringLiteral("1px dashed %1").arg(hex(palette::notPerformed)));
    case Band::Harmless: // nothing happened twice: grey, not bold
        return QStringLiteral("QLabel { border: none; background: %1; color: %2; padding: 4px; }")
                .arg(hex(palette::quietBackground), hex(palette::text));
    }
    return {};
}

QString liveAccount()
{
    return QStringLiteral("QLabel { font-weight: bold; padding: 6px; color: #ffffff; background: %1; }")
            .arg(hex(palette::duplicate));
}

QString standing(bool open)
{
    return QStringLiteral("QLabel { font-weight: bold; padding: 4px; color: %1; background: %2; }")
            .arg(hex(open ? palette::unknown : palette::notPerformed),
                 hex(open ? palette::unknownBackground : palette::notPerformedBackground));
}

QString messageCard(MessageKind kind)
{
    switch (kind) {
    case MessageKind::Customer:
        return frame(palette::surface, QStringLiteral("1px solid %1").arg(hex(palette::lightBorder)));
    case MessageKind::Agent: // the agent talking to itself: dashed, apart from what the customer read
        return frame(palette::agentNoteBackground, QStringLiteral("1px dashed %1").arg(hex(palette::border)));
    case MessageKind::System:
        return frame(palette::systemBackground,
                     QStringLiteral("1px solid %1").arg(hex(palette::systemBorder)));
    case MessageKind::Reply:
        return frame(palette::replyBackground, QStringLiteral("1px solid %1").arg(hex(palette::replyBorder)));
    }
    return {};
}

QString callCard(const QString &selector, bool highlighted, bool dangerous)
{
    const QString border = highlighted ? QStringLiteral("2px solid %1").arg(hex(palette::focus))
            : dangerous                ? QStringLiteral("2px solid %1").arg(hex(palette::unknownBorder))
                                       : QStringLiteral("1px solid %1").arg(hex(palette::border));
    return QStringLiteral("%1 { background: %2; border: %3; border-radius: %4px; }")
            .arg(selector, hex(palette::surface), border)
            .arg(cardRadius);
}

QString focusedTable(const QString &selector)
{
    return QStringLiteral("%1:focus { border: 2px solid %2; }").arg(selector, hex(palette::focus));
}

QString classBadge()
{
    return QStringLiteral("QLabel { border: 1px solid %1; border-radius: 3px; padding: 0 4px; color: %2; "
                          "background: %3; }")
            .arg(hex(palette::border), hex(palette::text), hex(palette::surface));
}

QString codeBlock()
{
    return QStringLiteral("QLabel { border: none; background: %1; padding: 3px; }")
            .arg(hex(palette::codeBackground));
}

QString codeField()
{
    return QStringLiteral("QLineEdit { border: none; background: %1; padding: 3px; }")
            .arg(hex(palette::codeBackground));
}

QString transcriptPage(const QString &objectName)
{
    return QStringLiteral("#%1 { background: %2; }").arg(objectName, hex(palette::page));
}

QColor toneColour(Tone tone)
{
    switch (tone) {
    case Tone::Neutral:
        break;
    case Tone::Good:
        return QColor(QLatin1String(palette::performed));
    case Tone::Bad:
        return QColor(QLatin1String(palette::duplicate));
    case Tone::Warning:
        return QColor(QLatin1String(palette::unknown));
    }
    return QColor(QLatin1String(palette::text));
}

} // namespace verity::theme
