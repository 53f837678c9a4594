#pragma once
// An agent's MCP side for the guard's tests: mcp-sdk/driver.mjs, the official SDK's Client,
// talking to `verity guard … -- node ledger-server.mjs` over stdio, driven a command at a
// time. The server's ledger file is the provider's truth: the refunds it made.

#include "listeningprocess.h"
#include "support/verityprocess.h"

#include <QDeadlineTimer>
#include <QFile>
#include <QProcess>
#include <QTest>

#include <nlohmann/json.hpp>

namespace verity::test {

class GuardAgent
{
public:
    struct Options
    {
        QString database;
        QString ledger;
        QString refundMode = QStringLiteral("answer"); // see ledger-server.mjs
        QStringList guardOptions; // before --
        int lateMs = 2500;
        QString url; // set: the client talks Streamable HTTP to this guard, which runs apart
    };

    GuardAgent(const Options &options, const QProcessEnvironment &environment)
    {
        QProcessEnvironment env = environment;
        env.insert(QStringLiteral("LEDGER"), options.ledger);
        env.insert(QStringLiteral("REFUND_MODE"), options.refundMode);
        env.insert(QStringLiteral("LATE_MS"), QString::number(options.lateMs));
        m_process.setProcessEnvironment(env);
        m_process.setWorkingDirectory(QStringLiteral(VERITY_GUARD_JS));
        QStringList arguments{QStringLiteral("driver.mjs")};
        if (!options.url.isEmpty()) {
            arguments += {QStringLiteral("--url"), options.url};
        } else {
            arguments += {QStringLiteral(VERITY_BINARY), QStringLiteral("guard"), QStringLiteral("--db"),
                          options.database};
            arguments += options.guardOptions;
            arguments +=
                    {QStringLiteral("--"), QStringLiteral(VERITY_NODE), QStringLiteral("ledger-server.mjs")};
        }
        m_process.start(QStringLiteral(VERITY_NODE), arguments);
        m_process.waitForStarted();
    }
    ~GuardAgent()
    {
        if (m_process.state() != QProcess::NotRunning) {
            m_process.kill();
            m_process.waitForFinished();
        }
    }

    // One command, and its answer; null when none came within `timeoutMs`.
    nlohmann::json send(const nlohmann::json &command, int timeoutMs = 20000)
    {
        sendWithoutWaiting(command);
        return nextAnswer(timeoutMs);
    }
    void sendWithoutWaiting(const nlohmann::json &command)
    {
        m_process.write(QByteArray::fromStdString(command.dump()) + '\n');
    }
    nlohmann::json nextAnswer(int timeoutMs)
    {
        const QDeadlineTimer deadline(timeoutMs);
        while (!m_out.contains('\n') && !deadline.hasExpired()) {
            m_process.waitForReadyRead(50);
            m_out += m_process.readAllStandardOutput();
            m_err += m_process.readAllStandardError();
            QCoreApplication::processEvents();
        }
        const qsizetype end = m_out.indexOf('\n');
        if (end < 0)
            return nullptr;
        const QByteArray line = m_out.left(end);
        m_out.remove(0, end + 1);
        return nlohmann::json::parse(line.toStdString(), nullptr, false);
    }

    nlohmann::json call(const QString &tool, const nlohmann::json &arguments, int timeoutMs,
                        const QString &conversation = QString())
    {
        nlohmann::json command{{"op", "call"},
                               {"name", tool.toStdString()},
                               {"arguments", arguments},
                               {"timeout", timeoutMs}};
        if (!conversation.isEmpty())
            command["conversation"] = conversation.toStdString();
        return send(command, timeoutMs + 20000);
    }

    bool close()
    {
        send({{"op", "close"}});
        const bool done = m_process.waitForFinished(15000);
        m_err += m_process.readAllStandardError();
        return done;
    }

    // What the guard and the driver wrote to stderr so far.
    QString log()
    {
        m_err += m_process.readAllStandardError();
        return QString::fromUtf8(m_err);
    }

private:
    QProcess m_process;
    QByteArray m_out;
    QByteArray m_err;
};

// The text of a CallToolResult's first block.
inline QString resultText(const nlohmann::json &answer)
{
    const nlohmann::json &result = answer.value("result", nlohmann::json::object());
    if (!result.contains("content") || result["content"].empty())
        return {};
    return QString::fromStdString(result["content"][0].value("text", std::string()));
}

inline bool resultIsError(const nlohmann::json &answer)
{
    return answer.value("result", nlohmann::json::object()).value("isError", false);
}

// The ledger's entries of one kind ("refund", "read", "voucher").
inline QList<nlohmann::json> ledgerEntries(const QString &path, const char *kind)
{
    QList<nlohmann::json> entries;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return entries;
    for (const QByteArray &line : file.readAll().split('\n')) {
        if (line.trimmed().isEmpty())
            continue;
        const nlohmann::json entry = nlohmann::json::parse(line.toStdString(), nullptr, false);
        if (entry.value("kind", std::string()) == kind)
            entries.append(entry);
    }
    return entries;
}

} // namespace verity::test
