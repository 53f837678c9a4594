#include "subcommandline.h"

namespace verity {

SubcommandLine::SubcommandLine(QString name, const QString &description)
    : m_name(std::move(name))
{
    if (!description.isEmpty())
        m_parser.setApplicationDescription(description);
    m_parser.addHelpOption();
}

std::optional<int> SubcommandLine::parse(const QStringList &arguments, const QString &usage)
{
    if (!m_parser.parse(arguments))
        return fail(m_parser.errorText());
    if (!asksForHelp())
        return std::nullopt;
    QString help = m_parser.helpText();
    help.replace(0, help.indexOf(u'\n'), usage);
    m_out << help;
    m_out.flush();
    return 0;
}

std::optional<int> SubcommandLine::parseWithOwnHelp(const QStringList &arguments, const QString &help)
{
    if (!m_parser.parse(arguments)) {
        m_err << "verity " << m_name << ": " << m_parser.errorText() << "\n\n" << help;
        m_err.flush();
        return 2;
    }
    if (!asksForHelp())
        return std::nullopt;
    m_out << help;
    m_out.flush();
    return 0;
}

bool SubcommandLine::asksForHelp() const
{
    return m_parser.isSet(QStringLiteral("help")) || m_parser.isSet(QStringLiteral("help-all"));
}

int SubcommandLine::fail(const QString &message)
{
    m_err << "verity " << m_name << ": " << message << "\n";
    m_err.flush();
    return 2;
}

} // namespace verity
