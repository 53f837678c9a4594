#include "whatifwindow.h"

#include "domain/displaytext.h"
#include "plaintextlabel.h"
#include "screenfit.h"
#include "simulation/whatifcomparison.h"
#include "theme.h"

#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QShortcut>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QVBoxLayout>

namespace verity {

namespace {

QPlainTextEdit *eventList(QWidget *parent)
{
    auto *list = new QPlainTextEdit(parent);
    list->setReadOnly(true); // plain text: transcript words are never markup
    list->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    return list;
}

QString eventLines(const std::optional<WhatIfResult> &result)
{
    if (!result)
        return {};
    QStringList lines;
    for (const SimulatedEvent &event : result->events)
        lines.append(formatStepTime(event.at) + QStringLiteral("  ") + event.summary);
    if (!result->problem.isEmpty())
        lines.append(QObject::tr("Problem with the run: %1").arg(result->problem));
    return lines.join(u'\n');
}

// The cells where a policy did harm, in the theme's colour for it.
class HarmDelegate : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;

protected:
    void initStyleOption(QStyleOptionViewItem *option, const QModelIndex &index) const override
    {
        QStyledItemDelegate::initStyleOption(option, index);
        if (index.data(WhatIfComparison::HarmRole).toBool())
            option->palette.setColor(QPalette::Text, theme::toneColour(theme::Tone::Bad));
    }
};

} // namespace

WhatIfWindow::WhatIfWindow(WhatIfComparison &comparison, QWidget *parent)
    : QWidget(parent, Qt::Window)
    , m_comparison(comparison)
{
    setWindowTitle(tr("What if — %1").arg(comparison.ticketExtId()));
    m_fault = plainTextLabel(
            comparison.scenario()
                    ? tr("The same fault at the same moment: %1").arg(comparison.scenario()->faultNote)
                    : QString(),
            this);
    m_fault->setWordWrap(true);
    auto *model = plainTextLabel(
            tr("The model is the simulator's fixed policy: it retries a write that reads as failed "
               "(three calls at most), escalates an unknown without retrying, and reports "
               "\"already performed\" as done. Each policy runs against a sandbox provider of its "
               "own on this machine."),
            this);
    model->setWordWrap(true);

    m_table = new QTableView(this);
    m_table->setModel(&comparison);
    m_table->setItemDelegate(new HarmDelegate(m_table));
    m_table->setWordWrap(true);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    fitTable();

    auto *asShipped = new QGroupBox(tr("As shipped, step by step"), this);
    m_asShippedEvents = eventList(asShipped);
    (new QVBoxLayout(asShipped))->addWidget(m_asShippedEvents);
    auto *intentKey = new QGroupBox(tr("Intent key, step by step"), this);
    m_intentKeyEvents = eventList(intentKey);
    (new QVBoxLayout(intentKey))->addWidget(m_intentKeyEvents);
    auto *events = new QHBoxLayout;
    events->addWidget(asShipped);
    events->addWidget(intentKey);

    m_run = new QPushButton(tr("Run again"), this);
    m_status = plainTextLabel(QString(), this, false);
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_status, 1);
    buttons->addWidget(m_run);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_fault);
    layout->addWidget(model);
    layout->addWidget(m_table);
    layout->addLayout(events, 1);
    layout->addLayout(buttons);

    connect(m_run, &QPushButton::clicked, this, [this] {
        m_run->setEnabled(false);
        m_status->setText(tr("Running both policies against the sandbox…"));
        m_comparison.run();
    });
    connect(&comparison, &WhatIfComparison::finished, this, &WhatIfWindow::showResults);
    // A window that only shows a result closes with Esc, as a dialog would.
    auto *escape = new QShortcut(QKeySequence(Qt::Key_Escape), this);
    escape->setContext(Qt::WindowShortcut);
    connect(escape, &QShortcut::activated, this, &QWidget::close);
    fitToScreen(*this, QSize(1280, 820));
}

// As tall as its rows, so the step lists below get the rest of the window.
void WhatIfWindow::fitTable()
{
    m_table->resizeRowsToContents();
    int height = m_table->horizontalHeader()->height() + 2 * m_table->frameWidth();
    for (int row = 0; row < m_table->model()->rowCount(); ++row)
        height += m_table->rowHeight(row);
    m_table->setFixedHeight(height);
}

void WhatIfWindow::showResults()
{
    m_run->setEnabled(true);
    fitTable();
    m_asShippedEvents->setPlainText(eventLines(m_comparison.result(SimPolicy::AsShipped)));
    m_intentKeyEvents->setPlainText(eventLines(m_comparison.result(SimPolicy::IntentKey)));
    m_status->setText(m_comparison.error().isEmpty() ? tr("Done.")
                                                     : tr("Could not run: %1").arg(m_comparison.error()));
}

} // namespace verity
