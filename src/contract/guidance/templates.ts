/**
 * The six domain templates of `recommend` (docs/decisions/A14.md; contents after docs/decisions/A14.md,
 * reasons in our own words). Order matters: on equal scores the earlier template wins.
 */
import type { GuidanceDomain, RelationSuggestion, SuggestedEntity } from './schemas.ts';

/** One domain template: its trigger words, entities and relations. */
export interface DomainTemplate {
  domain: GuidanceDomain;
  /** Whole words (singular) that select the template. */
  keywords: readonly string[];
  entities: readonly SuggestedEntity[];
  relations: readonly RelationSuggestion[];
}

const entity = (key: string, name: string, pluralName: string, reason: string, suggestedFields: string[]): SuggestedEntity => ({
  key,
  name,
  pluralName,
  reason,
  suggestedFields,
});
const belongsTo = (source: string, target: string, reason: string): RelationSuggestion => ({ source, kind: 'belongs_to', target, reason });

/** Every template, in tie-break order. */
export const domainTemplates: readonly DomainTemplate[] = [
  {
    domain: 'crm',
    keywords: ['crm', 'customer', 'sales', 'account', 'contact', 'deal', 'opportunity', 'pipeline'],
    entities: [
      entity('account', 'Account', 'Accounts', 'The companies you sell to; everything else hangs off an account.', [
        'name',
        'industry',
        'website',
        'phone',
        'status',
      ]),
      entity('contact', 'Contact', 'Contacts', 'The people you talk to at each account.', ['first_name', 'last_name', 'email', 'phone', 'title']),
      entity('deal', 'Deal', 'Deals', 'Opportunities moving through the sales pipeline.', ['title', 'amount', 'stage', 'close_date', 'probability']),
    ],
    relations: [
      belongsTo('contact', 'account', 'Each contact works at one account.'),
      belongsTo('deal', 'account', 'Each deal is negotiated with one account.'),
    ],
  },
  {
    domain: 'ticket',
    keywords: ['ticket', 'support', 'helpdesk', 'issue', 'bug', 'incident'],
    entities: [
      entity('ticket', 'Ticket', 'Tickets', 'The requests and problems your team works on.', ['title', 'description', 'priority', 'status', 'assigned_to']),
      entity('customer', 'Customer', 'Customers', 'Who raised the ticket and whom to answer.', ['name', 'email', 'company', 'phone']),
      entity('comment', 'Comment', 'Comments', 'The conversation on a ticket, public replies and internal notes.', ['body', 'author', 'is_internal']),
    ],
    relations: [
      belongsTo('ticket', 'customer', 'Each ticket is raised by one customer.'),
      belongsTo('comment', 'ticket', 'Each comment is part of one ticket.'),
    ],
  },
  {
    domain: 'inventory',
    keywords: ['inventory', 'product', 'warehouse', 'stock', 'asset', 'catalog'],
    entities: [
      entity('product', 'Product', 'Products', 'The items you stock and sell.', ['name', 'sku', 'price', 'category', 'description']),
      entity('warehouse', 'Warehouse', 'Warehouses', 'The places where stock is kept.', ['name', 'address', 'capacity']),
      entity('stock_level', 'Stock Level', 'Stock Levels', 'How many units of a product one warehouse holds.', ['quantity', 'min_threshold', 'max_threshold']),
    ],
    relations: [
      belongsTo('stock_level', 'product', 'A stock level counts one product.'),
      belongsTo('stock_level', 'warehouse', 'A stock level is kept in one warehouse.'),
    ],
  },
  {
    domain: 'project',
    keywords: ['project', 'task', 'team', 'sprint', 'kanban', 'agile', 'roadmap', 'milestone'],
    entities: [
      entity('project', 'Project', 'Projects', 'The container that groups the work.', ['name', 'description', 'status', 'start_date', 'end_date']),
      entity('task', 'Task', 'Tasks', 'The individual pieces of work inside a project.', [
        'title',
        'description',
        'status',
        'priority',
        'assigned_to',
        'due_date',
      ]),
      entity('team_member', 'Team Member', 'Team Members', 'The people who do the work.', ['name', 'email', 'role']),
    ],
    relations: [belongsTo('task', 'project', 'Each task is part of one project.')],
  },
  {
    domain: 'hr',
    keywords: ['hr', 'employee', 'department', 'leave', 'payroll', 'attendance', 'staff'],
    entities: [
      entity('employee', 'Employee', 'Employees', 'The people the organisation employs.', [
        'first_name',
        'last_name',
        'email',
        'department',
        'position',
        'hire_date',
      ]),
      entity('department', 'Department', 'Departments', 'The units employees are organised in.', ['name', 'code', 'head']),
      entity('leave_request', 'Leave Request', 'Leave Requests', 'Requests for time off and their approval state.', [
        'type',
        'start_date',
        'end_date',
        'status',
        'reason',
      ]),
    ],
    relations: [
      belongsTo('employee', 'department', 'Each employee works in one department.'),
      belongsTo('leave_request', 'employee', 'Each leave request is filed by one employee.'),
    ],
  },
  {
    domain: 'order',
    keywords: ['order', 'ecommerce', 'shop', 'cart', 'checkout', 'invoice', 'payment'],
    entities: [
      entity('customer', 'Customer', 'Customers', 'The buyers who place orders.', ['name', 'email', 'phone', 'address']),
      entity('order', 'Order', 'Orders', 'Purchases placed by customers.', ['order_number', 'total', 'status', 'order_date', 'shipping_address']),
      entity('order_item', 'Order Item', 'Order Items', 'The lines of an order: what was bought and how many.', [
        'product_name',
        'quantity',
        'unit_price',
        'subtotal',
      ]),
    ],
    relations: [belongsTo('order', 'customer', 'Each order is placed by one customer.'), belongsTo('order_item', 'order', 'Each item is a line of one order.')],
  },
];
