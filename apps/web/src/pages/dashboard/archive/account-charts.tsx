import {
  Bar,
  BarChart,
  CartesianGrid,
  Legend,
  Line,
  LineChart,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";
import { useArchiveStats } from "../../../api/archive.ts";
import { formatCount } from "../../../lib/format.ts";

/**
 * Per account (or all): posts per month and their engagement over time (issue 30). Loaded on
 * demand with the chart library, only when the user opens the charts.
 */
export default function AccountCharts({ accountId }: { accountId: string | undefined }) {
  const stats = useArchiveStats(accountId);
  if (stats.isPending) return <p className="muted">Loading charts...</p>;
  if (stats.isLoadingError) return <p role="alert">Failed to load the charts</p>;
  const months = stats.data.months;
  if (months.length === 0)
    return <p className="muted">No posts yet: the charts fill in as posts are backed up.</p>;
  return (
    <div className="archive-charts" data-testid="archive-charts">
      {/* Every post Keepsake keeps: the dashboard's Total Posts (issue 36). */}
      <p className="muted" data-testid="charts-posts">
        {formatCount(stats.data.posts)} posts
        {stats.data.stories > 0
          ? ` incl. ${formatCount(stats.data.stories)} ${stats.data.stories === 1 ? "story" : "stories"}`
          : ""}
        {stats.data.gone > 0 ? ` · ${formatCount(stats.data.gone)} no longer on Instagram` : ""}
      </p>
      <figure aria-label="Posts per month">
        <figcaption>Posts per month</figcaption>
        <ResponsiveContainer width="100%" height={180}>
          <BarChart data={months} margin={{ top: 8, right: 16, bottom: 0, left: 0 }}>
            <CartesianGrid strokeDasharray="3 3" stroke="#333" />
            <XAxis dataKey="month" stroke="#999" fontSize={12} />
            <YAxis allowDecimals={false} stroke="#999" fontSize={12} />
            <Tooltip />
            <Bar dataKey="posts" name="Posts" fill="#8a5cf6" />
          </BarChart>
        </ResponsiveContainer>
      </figure>
      <figure aria-label="Engagement over time">
        <figcaption>Engagement of each month's posts (latest counts)</figcaption>
        <ResponsiveContainer width="100%" height={200}>
          <LineChart data={months} margin={{ top: 8, right: 16, bottom: 0, left: 0 }}>
            <CartesianGrid strokeDasharray="3 3" stroke="#333" />
            <XAxis dataKey="month" stroke="#999" fontSize={12} />
            <YAxis stroke="#999" fontSize={12} />
            <Tooltip />
            <Legend />
            <Line type="monotone" dataKey="likes" name="Likes" stroke="#e1306c" />
            <Line type="monotone" dataKey="comments" name="Comments" stroke="#4f8cff" />
            <Line type="monotone" dataKey="views" name="Views" stroke="#3ecf8e" />
          </LineChart>
        </ResponsiveContainer>
      </figure>
    </div>
  );
}
